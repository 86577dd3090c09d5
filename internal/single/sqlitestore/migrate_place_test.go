package sqlitestore

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// A file an older build wrote, with cancel_previous replacements queued
// behind Runs admitted after the Runs they cancelled, dispatches each
// replacement from the cancelled Run's place once migrated, whether a
// later occurrence or a run now replaced it; a Run waiting under
// queue_one whose predecessor a person cancelled keeps its own place.
func TestMigratingGivesTheReplacementsAlreadyQueuedThePlaceOfTheRunsTheyCancelled(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0036-cancel-previous-takes-place")
	undoPlace, uncap := placeLater(t, e), projectCapLater(t, e)
	cancelling := everyMinute
	cancelling.Overlap = trigger.OverlapCancelPrevious
	clockTrigger := e.defs(t, "clock", cancelling).Trigger.TriggerID
	quiet := func(name string, policy trigger.OverlapPolicy) string {
		c := storetest.QuietCron(e.clock.NowMs())
		c.Overlap = policy
		return e.defs(t, name, c).Trigger.TriggerID
	}
	queueOne, manual, other := quiet("queue", trigger.OverlapQueueOne), quiet("manual", trigger.OverlapCancelPrevious), quiet("other", trigger.OverlapAllow)
	runNow := func(triggerID, request string) string {
		t.Helper()
		res, err := e.store.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: triggerID, RequestID: request})
		if err != nil || !res.Created {
			t.Fatalf("run %s now: %+v, %v", triggerID, res, err)
		}
		return res.RunID
	}
	e.admit(t, clockTrigger)
	// queue_one lets a Run wait only behind one that started.
	personCancelled := runNow(queueOne, "first")
	started := e.pending(t, personCancelled)
	if _, _, _, err := e.store.AttemptStart(ctx, started.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	waiting := runNow(queueOne, "second")
	if _, _, err := e.store.CancelRun(ctx, personCancelled, "ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AttemptFinish(ctx, run.Attempt{ID: started.ID, State: run.AttemptCancelled, ErrorCode: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	runNow(manual, "first")
	after := runNow(other, "after")
	byOccurrence := e.admit(t, clockTrigger)
	byRunNow := runNow(manual, "second")
	undoPlace()
	uncap()
	if _, err := e.store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{byOccurrence, waiting, byRunNow, after}
	if got := e.pendingOrder(t, 5); !slices.Equal(got, want) {
		t.Fatalf("after the migration the dispatcher's queue is %v,\nwant each replacement in its cancelled Run's place, the queue_one Run in its own: %v", got, want)
	}
}
