package sqlitestore

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// seedRetryWaiting adds n Runs waiting out a backoff that ends in an hour,
// copied from the Run template.
func (e *env) seedRetryWaiting(tb testing.TB, template string, n int) {
	tb.Helper()
	e.seedRuns(tb, template, n, retryWaitingRuns(e.clock.NowMs()+time.Hour.Milliseconds()))
}

// The dispatcher's queue reads the attempts it could start now and never
// the ones waiting out a retry backoff: its plan walks the partial index
// attempts_pending (which holds no waiting attempt) in the queue's order
// (a backfill's last, then by place: a cancel_previous replacement's is
// the Run it replaced, any other's its own), so it sorts nothing of the
// queue (only the few Runs holding a slot are grouped by project, to find
// the projects at their cap) and stops at the round's size; beside a
// project at its cap it reads attempts_pending_project, partial in the
// same way. With 1,000 Runs waiting to retry it still hands over the one
// queued Run.
func TestThePendingQueueNeverReadsAttemptsWaitingToRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "pending", everyMinute)
	queued := e.admit(t, d.Trigger.TriggerID)
	e.seedRetryWaiting(t, queued, 1_000)
	var inIndex int
	if err := e.raw.QueryRow(`SELECT count(*) FROM attempts INDEXED BY attempts_pending WHERE state = 'claimed' AND available_at_ms IS NULL`).Scan(&inIndex); err != nil {
		t.Fatal(err)
	}
	if inIndex != 1 {
		t.Fatalf("attempts_pending holds %d attempts, want only the queued Run's 1 of 1,001 claimed", inIndex)
	}
	joined := strings.Join(e.queryPlan(t, qAttemptsPending, 16), "\n")
	uncapped, _, _ := strings.Cut(joined, "UNION ALL")
	if !strings.Contains(uncapped, "SCAN a USING INDEX attempts_pending\n") || strings.Contains(uncapped, "TEMP B-TREE FOR ORDER BY") ||
		!strings.Contains(joined, "SEARCH a USING INDEX attempts_pending_project (project_id=?)") {
		t.Fatalf("the pending queue does not walk attempts_pending in its order, nor read attempts_pending_project beside a cap:\n%s", joined)
	}
	if p := e.pendingRuns(t); len(p) != 1 || !p[queued] {
		t.Fatalf("pending runs %v, want only the queued %s", p, queued)
	}
}

// benchPendingWaiting is how many Runs wait out a retry backoff while the
// dispatcher reads its queue in BenchmarkPendingWithRetriesWaiting.
const benchPendingWaiting = 10_000

// BenchmarkPendingWithRetriesWaiting measures one read of the
// dispatcher's queue (AttemptsPending, a round's 16 slots) with one Run
// queued, with no Run and with 10,000 Runs waiting out a retry backoff:
// the waiting Runs' attempts are claimed but not due, and a round must not
// pay for them.
func BenchmarkPendingWithRetriesWaiting(b *testing.B) {
	for _, waiting := range []int{0, benchPendingWaiting} {
		b.Run(fmt.Sprintf("waiting=%d", waiting), func(b *testing.B) {
			e := newEnv(b)
			p := e.projectTB(b, "bench")
			tk := e.taskTB(b, p.ID)
			tg := e.triggerTB(b, p.ID, tk, "tick")
			prepareBaseline(b, e).insert(b, e, p.ID, tk, tg)
			var queued string
			if err := e.raw.QueryRow(`SELECT id FROM runs`).Scan(&queued); err != nil {
				b.Fatal(err)
			}
			if waiting > 0 {
				e.seedRetryWaiting(b, queued, waiting)
			}
			for b.Loop() {
				list, err := e.store.AttemptsPending(b.Context(), 16)
				if err != nil || len(list) != 1 || list[0].RunID != queued {
					b.Fatalf("pending %+v, %v; want the one queued Run", list, err)
				}
			}
		})
	}
}
