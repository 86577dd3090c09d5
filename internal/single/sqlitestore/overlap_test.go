package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// Under queue_one the Run admitted behind an unfinished one is not handed
// to the dispatcher until the earlier Run has finished.
func TestAQueuedOneRunIsNotDispatchedWhileTheEarlierRunIsUnfinished(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := storetest.QuietCron(e.clock.NowMs())
	c.Overlap = trigger.OverlapQueueOne
	d := e.defs(t, "demo", c)
	id := d.Trigger.TriggerID
	first, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "two"})
	if err != nil || !second.Created {
		t.Fatalf("second request: %+v, %v; want a waiting Run", second, err)
	}
	third, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "three"})
	if err != nil || third.Skipped != schedule.PassOverlap {
		t.Fatalf("third request: %+v, %v; want it refused with one Run waiting already", third, err)
	}
	pendingRuns := func() map[string]bool {
		list, err := e.store.AttemptsPending(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, a := range list {
			out[a.RunID] = true
		}
		return out
	}
	if p := pendingRuns(); !p[first.RunID] || p[second.RunID] {
		t.Fatalf("pending runs %v; want the first and not the one waiting behind it", p)
	}
	if _, err := e.store.CancelRun(t.Context(), first.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	if p := pendingRuns(); !p[second.RunID] {
		t.Fatalf("pending runs %v; want the waiting Run once the earlier one finished", p)
	}
}
