package agent

import (
	"bytes"
	"testing"
)

// While replicas take its chunks, an attempt's output never holds more
// than its window, whatever the command writes, and drops nothing: a write
// that finds the window full waits until a chunk was sent, so the worker's
// memory is bounded by the window, not by the log cap.
func TestOutputHoldsAtMostItsWindowAndDropsNothingWhileReplicasTakeIt(t *testing.T) {
	t.Parallel()
	o := newOutput(outputWindow, func(n int64) { t.Errorf("%d bytes were dropped while the replica took every chunk", n) })
	const written = 10 * outputWindow
	piece := bytes.Repeat([]byte("x"), 64<<10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range written / len(piece) {
			_, _ = o.Write(piece)
		}
	}()
	var got []byte
	for finished := false; !finished; {
		select {
		case <-o.full:
		case <-o.wrote:
		case <-done:
			finished = true
		}
		for o.pending() > 0 {
			if p := o.pending(); p > outputWindow {
				t.Fatalf("%d bytes wait unsent, over the window of %d", p, outputWindow)
			}
			chunk := o.peek(chunkSize)
			got = append(got, chunk...)
			o.sent(len(chunk))
		}
	}
	if len(got) != written || bytes.Count(got, []byte("x")) != written {
		t.Fatalf("%d bytes were sent (%d of them output); %d were written", len(got), bytes.Count(got, []byte("x")), written)
	}
}
