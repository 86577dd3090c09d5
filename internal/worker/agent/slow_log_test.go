package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A replica that stores each log chunk but answers it only after 0.55 s
// keeps every byte of a command's output, at the shortest lease (3 s),
// though the command writes twice what the worker holds unsent and so
// waits on the sends for longer than output may stall; and the lease never
// lapses meanwhile. A log send is given all the time until the lease's
// kill point, not half of what was left before the next renewal: half was
// at most 0.5 s there, every send was cut before its answer, and after 5 s
// the worker dropped output (the log then holds a marker of the gap
// instead of the bytes), or, its output never all taken, the attempt never
// completed. The renewals still go out when they are due, on their own.
func TestASlowReplicasLogAnswersKeepEveryByteAndTheLease(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	in.mu.Lock()
	in.logDelay = 550 * time.Millisecond
	in.mu.Unlock()
	g := in.enqueue(t, shell(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x`, 2*outputWindow)))
	w := runAgent(t, in, nil)
	done := in.completed(g.AttemptID)
	a := in.attempt(g.AttemptID)
	in.mu.Lock()
	abandoned, requests := in.logAbandoned, in.logRequests
	in.mu.Unlock()
	t.Logf("%d log requests, %d of them given up before their answer", requests, abandoned)
	switch {
	case done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0:
		t.Fatalf("completion %+v; want the command exited 0\n%s", done, w.logs)
	case string(a.log) != strings.Repeat("x", 2*outputWindow):
		t.Fatalf("the log holds %d bytes (tail %q); want the command's %d bytes of output, none dropped\n%s", len(a.log), a.log[max(0, len(a.log)-200):], 2*outputWindow, w.logs)
	case a.late > 0 || strings.Contains(w.logs.String(), "attempt_lease_lost") || strings.Contains(w.logs.String(), "attempt_outlived_lease"):
		t.Fatalf("the lease lapsed (%d requests came after it): the log sends held a renewal past its time\n%s", a.late, w.logs)
	}
}
