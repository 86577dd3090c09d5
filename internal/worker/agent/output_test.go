package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
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

// A log send that no replica answers holds the command's writes no longer
// than outputStallAfter, though the worker gives that send up only at its
// deadline (here 10 s away, a send's longest try under a minute's lease):
// the command writes twice what the worker's buffer holds and ends
// while the first send is still held, and what did not fit is dropped,
// with a marker in the log and a warning. Before, the writes waited for
// the send to be given up.
func TestAHangingLogSendHoldsTheCommandsWritesNoLongerThanTheStallBound(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 60_000)
	in.holdLogs = true
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x; touch %s/wrote`, 2*outputWindow, dir)))
	w := runAgent(t, in, nil)
	waitFor(t, "the command to write all its output", func() bool {
		_, err := os.Stat(filepath.Join(dir, "wrote"))
		return err == nil
	})
	in.mu.Lock()
	givenUp := in.heldGivenUp
	in.holdLogs = false
	in.mu.Unlock()
	if givenUp > 0 {
		t.Fatalf("the command wrote its output only after the worker gave up %d unanswered log sends: its writes waited for them, longer than %s", givenUp, outputStallAfter)
	}
	done := in.completed(g.AttemptID)
	log := in.attempt(g.AttemptID).log
	switch {
	case done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0:
		t.Fatalf("completion %+v; want the command exited 0", done)
	case !regexp.MustCompile(`\n\[qinglong: \d+ bytes of output were dropped here: `).Match(log):
		t.Fatalf("the log (%d bytes) has no marker of the dropped output; its tail: %q", len(log), log[max(0, len(log)-300):])
	case !strings.Contains(w.logs.String(), `"code":"attempt_output_dropped"`):
		t.Fatalf("the worker did not warn of the dropped output:\n%s", w.logs.String())
	}
}
