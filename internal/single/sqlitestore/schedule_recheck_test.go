package sqlitestore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A row whose stored zone this host could not read waits out
// schedule.UnreadableRecheck on the injected clock, then is taken again:
// the wait only keeps it from the head of each round, and once the host
// reads its zone (here the stored zone made one it knows, as a zone
// database that gained it would) the occurrence it owed is admitted.
func TestARowThisHostCouldNotReadIsTakenAgainOnceItsRecheckComes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "mars", everyMinute)
	if res, err := e.commit(t, commitParams(t, e.takeOne(t))); err != nil || res.Outcome != schedule.Initialized {
		t.Fatalf("first decision: %+v, %v", res, err)
	}
	e.due(t, d.Trigger.TriggerID, 1_000)
	setZone := func(zone string) {
		t.Helper()
		if err := e.tamper(t.Context(), `DROP TRIGGER IF EXISTS trigger_revisions_immutable;
			UPDATE trigger_revisions SET timezone = ? WHERE (trigger_id, revision) = (SELECT id, current_revision FROM triggers WHERE id = ?)`,
			zone, d.Trigger.TriggerID); err != nil {
			t.Fatal(err)
		}
	}
	setZone("Mars/Olympus")
	round := func() schedule.Summary {
		t.Helper()
		sum, err := schedule.Round(t.Context(), e.store, schedule.RoundConfig{PageSize: 4, GraceMs: testGraceMs, Parallel: 1, NewIDs: ids.Fill})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if sum := round(); sum.Reasons[schedule.ReasonCronInvalid] != 1 {
		t.Fatalf("the unreadable row's round: %v, reasons %v; want it failed as cron_invalid", sum.Counts, sum.Reasons)
	} else if len(sum.Errors) != 1 {
		t.Fatalf("the unreadable row's round reported %v; want its one failure", sum.Errors)
	}
	e.clock.Advance(schedule.UnreadableRecheck - time.Second)
	if tks := e.take(t, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("a second before its recheck the take returned %d rows; want the failed row passed over", len(tks))
	}
	e.clock.Advance(time.Second)
	if tks := e.take(t, schedule.MaxPageSize); len(tks) != 1 || tks[0].TriggerID != d.Trigger.TriggerID {
		t.Fatalf("at its recheck the take returned %d rows; want the failed row again", len(tks))
	}
	setZone("UTC")
	if sum := round(); sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("the round once the zone reads: %v, reasons %v, errors %v; want its occurrence admitted", sum.Counts, sum.Reasons, sum.Errors)
	}
}
