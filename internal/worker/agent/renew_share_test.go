package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A renewal the replica answers later than its send's share of the lease
// (half of what is left to the kill point), but before the kill point,
// keeps the lease, though the replica answers every request slowly. Here
// the lease is 6 s: a renewal goes out 1.8 s after the last one, its send
// has a share of 1.6 s, and the kill point is 3.2 s after it. Every start
// and renewal is answered a fifth of the lease late (1.2 s), the first
// renewal 2.2 s late. Cut at its share, the renewal was sent again with
// 0.8 s of share, then 0.4 s, then 0.2 s, none of which a replica taking
// 1.2 s could answer, and the command was killed at the kill point, its
// replica answering all along.
func TestARenewalAnsweredAfterItsShareOfTheLeaseStillKeepsIt(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 6_000)
	in.mu.Lock()
	in.answerDelay = 1200 * time.Millisecond
	in.lateRenewal = 1
	in.lateBy = time.Second
	in.mu.Unlock()
	g := in.enqueue(t, shell(`sleep 6`))
	w := runAgent(t, in, nil)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", w.logs)
		}
	})
	waitFor(t, "the attempt to complete or its lease to be lost", func() bool {
		return in.attempt(g.AttemptID).complete != nil || strings.Contains(w.logs.String(), "attempt_lease_lost")
	})
	a := in.attempt(g.AttemptID)
	in.mu.Lock()
	renewals, replays := in.renewals, in.renewReplays
	in.mu.Unlock()
	switch {
	case renewals < 3 || replays < 1:
		t.Fatalf("the replica took %d renewals, %d of them a replay; want the late one sent again before its answer, and renewals after it", renewals, replays)
	case strings.Contains(w.logs.String(), "attempt_lease_lost") || a.late > 0:
		t.Fatalf("the lease was lost (%d requests came after it); want the late renewal's answer to have kept it", a.late)
	case a.complete.Outcome != workerproto.OutcomeExited || a.complete.ExitCode == nil || *a.complete.ExitCode != 0:
		t.Fatalf("completion %+v; want the command exited 0", *a.complete)
	}
}
