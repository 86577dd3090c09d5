package agent

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/plural"
)

// dropMarker is written into the output where n bytes were dropped because
// no replica took the worker's output while its buffer was full: the
// stored log then says it is incomplete, where, and by how much. It starts
// and ends a line of its own.
func dropMarker(n int64) []byte {
	were := "were"
	if n == 1 {
		were = "was"
	}
	return fmt.Appendf(nil, "\n[qinglong: %s of output %s dropped here: the worker could reach no replica to send its output to while its buffer was full]\n", plural.Count(n, "byte", "bytes"), were)
}

// maxDropMarker bounds a marker's length, whatever the count.
var maxDropMarker = len(dropMarker(math.MaxInt64))

// outputWindow bounds the output an attempt holds unsent, whatever the
// log cap: four chunks, so that the command writes on while one chunk is
// on its way.
const outputWindow = 4 * chunkSize

// output holds a command's (masked) output until it is sent, at most limit
// bytes. While replicas take the chunks, a write that finds it full waits
// for room, as a write to a full pipe does: the command is slowed to the
// pace its output is stored at, and nothing under the log cap is lost,
// while the worker's memory stays bounded by the window, not by the cap.
// Once no replica has taken a chunk for outputStallAfter since a write
// began to wait, or its sends have gone unanswered that long (stalled),
// waiting could hold the command for as long as they stay unreachable, so
// output past the limit is dropped until a send is answered again: a
// write never waits longer than that, whatever a send under way is doing
// (one a replica never answers is given up only at its deadline, up to
// 10 s later). What is dropped is counted, a marker naming the count
// takes its place in the output, and the worker logs the gap at WARN: the
// stored log is never silently incomplete. After close everything is dropped (the replica reached its
// cap and stored its own marker, or the attempt is over). Output keeps
// maxDropMarker bytes of its limit free, so a marker always fits: at most
// limit bytes (or one marker, for a limit smaller than that) ever wait.
type output struct {
	mu sync.Mutex
	// room is closed, and replaced, when bytes were sent, or the output
	// stalled or closed: a waiting write looks again.
	room chan struct{}
	// waitSince is when a write first found no room since a replica last
	// took a chunk (zero: none has): writes wait at most
	// outputStallAfter from then.
	waitSince time.Time
	buf       []byte
	limit     int
	closed    bool
	stalled   bool
	// waiting counts the writes waiting for room: the attempt then sends
	// what it holds without waiting for a whole chunk or its cadence.
	waiting int
	// dropped counts the bytes dropped since the last marker.
	dropped int64
	// gap is told of each marker written, with its count.
	gap func(n int64)
	// full is signalled when a whole chunk is waiting or a write waits
	// for room; wrote when output arrives with nothing waiting, so that a
	// line printed after a quiet spell is sent at once.
	full, wrote chan struct{}
}

func newOutput(limit int, gap func(n int64)) *output {
	return &output{limit: limit, gap: gap, room: make(chan struct{}), full: make(chan struct{}, 1), wrote: make(chan struct{}, 1)}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	for len(p) > 0 && !o.closed {
		// The marker of an earlier gap goes in once there is room for it
		// and for the marker of a later one.
		if o.dropped > 0 && len(o.buf)+2*maxDropMarker <= o.limit {
			o.mark()
		}
		keep := 0
		if o.dropped == 0 {
			keep = max(0, min(len(p), o.limit-maxDropMarker-len(o.buf)))
		}
		if keep > 0 {
			if len(o.buf) == 0 {
				notify(o.wrote)
			}
			o.buf = append(o.buf, p[:keep]...)
			p = p[keep:]
			if len(o.buf) >= chunkSize {
				notify(o.full)
			}
			continue
		}
		if o.stalled {
			o.dropped += int64(len(p))
			break
		}
		o.waitForRoom()
	}
	return n, nil
}

// waitForRoom waits, with o.mu held, until a chunk was sent, the output
// stalled or closed, or outputStallAfter has passed since the first write
// that found no room: then the output stalls, and what finds no room is
// dropped.
func (o *output) waitForRoom() {
	if o.waitSince.IsZero() {
		o.waitSince = time.Now()
	}
	left := time.Until(o.waitSince.Add(outputStallAfter))
	if left <= 0 {
		o.stalled = true
		o.wake()
		return
	}
	o.waiting++
	notify(o.full)
	room := o.room
	o.mu.Unlock()
	limit := time.NewTimer(left)
	select {
	case <-room:
	case <-limit.C:
	}
	limit.Stop()
	o.mu.Lock()
	o.waiting--
}

// wake has every waiting write look again.
func (o *output) wake() {
	close(o.room)
	o.room = make(chan struct{})
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// mark writes the marker of the bytes dropped since the last one.
func (o *output) mark() {
	o.buf = append(o.buf, dropMarker(o.dropped)...)
	o.gap(o.dropped)
	o.dropped = 0
}

// finish writes the marker of a gap at the end of the output: the
// command has ended and nothing more is written.
func (o *output) finish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed && o.dropped > 0 {
		o.mark()
	}
}

// pending is how many bytes wait to be sent.
func (o *output) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf)
}

// sendNow reports whether what waits should be sent at once: a whole
// chunk, or a write waits for room.
func (o *output) sendNow() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf) >= chunkSize || (o.waiting > 0 && len(o.buf) > 0)
}

// peek returns a copy of the first n bytes waiting (at most).
func (o *output) peek(n int) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]byte(nil), o.buf[:min(n, len(o.buf))]...)
}

// sent forgets the first n bytes, which a replica took: the output is no
// longer stalled.
func (o *output) sent(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf[:0], o.buf[n:]...)
	o.stalled = false
	o.waitSince = time.Time{}
	o.wake()
}

// stall records that no replica takes the output: output that finds no
// room is dropped from now on, until a send is answered.
func (o *output) stall() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stalled = true
	o.wake()
}

// close drops what waits and everything written later: the replica
// reached its cap and stored its own marker, or the attempt is over.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.buf = nil
	o.wake()
}
