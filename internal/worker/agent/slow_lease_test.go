package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A replica that answers renewals late as well as log chunks keeps every
// byte of a command's output and the lease: the renewer renews beside the
// sends, so no chunk waits behind a renewal nor is cut when the next one
// is due. Here the lease is 6 s (a renewal due every 2 s) and each
// renewal and chunk is answered 1.1 s late: sent one at a time, each chunk
// had what was left after a renewal before the next (0.9 s), every one
// was cut, and output was dropped. (The same holds at 0.6 s under a 3 s
// lease, the replica's shortest; twice that leaves a renewal's own
// margin room on a machine loaded enough to slow each answer further.)
func TestASlowReplicasRenewalsHoldNoLogChunkBack(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 6_000)
	in.mu.Lock()
	in.logDelay = 1100 * time.Millisecond
	in.answerDelay = 1100 * time.Millisecond
	in.mu.Unlock()
	g := in.enqueue(t, shell(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x`, 2*outputWindow)))
	w := runAgent(t, in, nil)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", w.logs)
		}
	})
	done := in.completed(g.AttemptID)
	a := in.attempt(g.AttemptID)
	switch {
	case a.version < 3:
		t.Fatalf("the lease is at version %d; want the command to have run across renewals", a.version)
	case done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0:
		t.Fatalf("completion %+v; want the command exited 0\n%s", done, w.logs)
	case string(a.log) != strings.Repeat("x", 2*outputWindow):
		t.Fatalf("the log holds %d bytes (tail %q); want the command's %d bytes of output, none dropped\n%s", len(a.log), a.log[max(0, len(a.log)-200):], 2*outputWindow, w.logs)
	case a.late > 0 || strings.Contains(w.logs.String(), "attempt_lease_lost"):
		t.Fatalf("the lease lapsed (%d requests came after it)\n%s", a.late, w.logs)
	}
}
