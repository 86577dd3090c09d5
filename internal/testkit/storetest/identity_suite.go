package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// testCommandIsToldItsOccurrence checks what a started attempt's command
// is told (run.Identity, its QL_* variables) for a Run of each origin: the
// occurrence it is for (the cron's nominal time, kept by a backfill and a
// rerun; the request's moment for run now), when it fell due, the names of what fired and what runs, and how it was made — the same as the
// run readers say, whichever executor starts it.
func testCommandIsToldItsOccurrence(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	now := nowOf(t, f)
	times := cronTimes(t, c, now-6*60*60_000, now-1)
	clockAt, backfillAt := times[len(times)-2], times[0]
	moveCursor(t, f, id, clockAt, offset(0))
	p := commitParams(t, takeOne(t, f))
	clock := commit(t, f, p)
	if clock.Outcome != schedule.Admitted {
		t.Fatalf("clock admission: %s (%s), want admitted", clock.Outcome, clock.Reason)
	}
	filled := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: backfillAt, ToMs: backfillAt, Actor: "ops"})
	if filled.Admitted != 1 {
		t.Fatalf("backfill %+v, want the one occurrence at %d admitted", filled, backfillAt)
	}
	told := func(runID string) run.Identity {
		t.Helper()
		if _, err := f.Finish(t.Context(), runID, run.AttemptSucceeded); err != nil {
			t.Fatalf("start and finish %s: %v", runID, err)
		}
		return f.Told(runID)
	}
	check := func(what string, got run.Identity, runID string, origin run.Origin, scheduledMs int64) {
		t.Helper()
		d, err := f.Runs.RunGet(t.Context(), runID)
		if err != nil {
			t.Fatal(err)
		}
		r := d.Run
		want := run.Identity{RunID: runID, AttemptID: d.Attempts[0].ID, AttemptNumber: 1, Project: r.ProjectName, Trigger: r.TriggerName,
			Task: r.TaskName, ScheduledForMs: scheduledMs, DueAtMs: r.DueAtMs, Origin: origin}
		if got != want || r.Origin != origin || r.ScheduledForMs != scheduledMs || r.ProjectName != "alpha" || r.TriggerName != "tick" || r.TaskName != "job" {
			t.Errorf("%s: the command was told %+v; want %+v (the Run reads %+v)", what, got, want, r)
		}
	}
	check("clock", told(clock.RunID), clock.RunID, run.OriginClock, clockAt)
	check("backfill", told(filled.RunIDs[0]), filled.RunIDs[0], run.OriginBackfill, backfillAt)
	again, err := f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: filled.RunIDs[0], RequestID: "again", Actor: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	check("rerun", told(again.RunID), again.RunID, run.OriginRerun, backfillAt)
	asked := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "now", Actor: "ops"})
	byHand := told(asked.RunID)
	check("run now", byHand, asked.RunID, run.OriginRunNow, byHand.ScheduledForMs)
	if byHand.ScheduledForMs < now || byHand.DueAtMs != byHand.ScheduledForMs {
		t.Errorf("run now was told it is scheduled at %d and due at %d, the request was made after %d; want both the request's moment", byHand.ScheduledForMs, byHand.DueAtMs, now)
	}
}
