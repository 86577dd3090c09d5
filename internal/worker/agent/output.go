package agent

import (
	"fmt"
	"math"
	"sync"

	"github.com/qinglong/qinglong/internal/core/plural"
)

// dropMarker is written into the output where n bytes were dropped because
// the buffer was full: the stored log then says it is incomplete, where,
// and by how much. It starts and ends a line of its own.
func dropMarker(n int64) []byte {
	were := "were"
	if n == 1 {
		were = "was"
	}
	return fmt.Appendf(nil, "\n[qinglong: %s of output %s dropped here: the worker could not send its output to a replica before its buffer filled]\n", plural.Count(n, "byte", "bytes"), were)
}

// maxDropMarker bounds a marker's length, whatever the count.
var maxDropMarker = len(dropMarker(math.MaxInt64))

// output holds a command's (masked) output until it is sent. It never
// blocks the command: beyond limit unsent bytes, output is dropped (the
// replica keeps at most its log cap anyway), and after close everything
// is dropped. What is dropped while the replica is unreachable or slow is
// counted, and a marker naming the count takes its place in the output, so
// the stored log is never silently incomplete. Output keeps maxDropMarker
// bytes of its limit free, so a marker always fits: at most limit bytes
// (or one marker, for a limit smaller than that) ever wait.
type output struct {
	mu     sync.Mutex
	buf    []byte
	limit  int
	closed bool
	// dropped counts the bytes dropped since the last marker.
	dropped int64
	// full is signalled when a whole chunk is waiting; wrote when output
	// arrives with nothing waiting, so that a line printed after a quiet
	// spell is sent at once.
	full, wrote chan struct{}
}

func newOutput(limit int) *output {
	return &output{limit: limit, full: make(chan struct{}, 1), wrote: make(chan struct{}, 1)}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return len(p), nil
	}
	// The marker of an earlier gap goes in once there is room for it and
	// for the marker of a later one.
	if o.dropped > 0 && len(o.buf)+2*maxDropMarker <= o.limit {
		o.mark()
	}
	keep := 0
	if o.dropped == 0 {
		keep = max(0, min(len(p), o.limit-maxDropMarker-len(o.buf)))
		if keep > 0 && len(o.buf) == 0 {
			select {
			case o.wrote <- struct{}{}:
			default:
			}
		}
		o.buf = append(o.buf, p[:keep]...)
	}
	o.dropped += int64(len(p) - keep)
	if len(o.buf) >= chunkSize {
		select {
		case o.full <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// mark writes the marker of the bytes dropped since the last one.
func (o *output) mark() {
	o.buf = append(o.buf, dropMarker(o.dropped)...)
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

// peek returns a copy of the first n bytes waiting (at most).
func (o *output) peek(n int) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]byte(nil), o.buf[:min(n, len(o.buf))]...)
}

// drop forgets the first n bytes: they were sent.
func (o *output) drop(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf[:0], o.buf[n:]...)
}

// close drops what waits and everything written later: the replica
// reached its cap and stored its own marker.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.buf = nil
}
