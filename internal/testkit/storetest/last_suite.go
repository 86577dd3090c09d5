package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// The newest Run of each trigger asked for is the one admitted last, with
// its state, scheduled time and finish; a trigger without a Run is absent,
// an empty page is answered empty, and a page past the bound or an id that
// is not one is refused as invalid.
func testRunsLast(t *testing.T, f Fixture) {
	busy := newDefs(t, f, "busy", quietCron(t, f))
	idle := initialisedDefs(t, f, "idle")
	first := admitNow(t, f, busy.Trigger.TriggerID, 2_000)
	if _, err := f.Finish(t.Context(), first, run.AttemptSucceeded); err != nil {
		t.Fatal(err)
	}
	second := admitNow(t, f, busy.Trigger.TriggerID, 1_000)
	got, err := f.Last.RunsLast(t.Context(), []string{busy.Trigger.TriggerID, idle.Trigger.TriggerID})
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.Runs.RunGet(t.Context(), second)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := got[busy.Trigger.TriggerID]
	if len(got) != 1 || !ok || l.RunID != second || l.State != want.Run.State || l.ScheduledForMs != want.Run.ScheduledForMs || l.FinishedAtMs != nil {
		t.Fatalf("the newest Runs: %+v; want only trigger busy's, the unfinished Run %s (%s, scheduled %d) admitted after the finished %s",
			got, second, want.Run.State, want.Run.ScheduledForMs, first)
	}
	if _, err := f.Finish(t.Context(), second, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	if got, err = f.Last.RunsLast(t.Context(), []string{busy.Trigger.TriggerID}); err != nil || got[busy.Trigger.TriggerID].State != run.Failed || got[busy.Trigger.TriggerID].FinishedAtMs == nil {
		t.Fatalf("the newest Run once it failed: %+v, %v; want it failed with its finish", got, err)
	}
	if got, err := f.Last.RunsLast(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("no triggers: %+v, %v; want none and no error", got, err)
	}
	many := make([]string, run.MaxLastTriggers+1)
	for i := range many {
		many[i] = ids.New()
	}
	for what, list := range map[string][]string{"too many triggers": many, "an id that is not one": {"nightly"}} {
		if _, err := f.Last.RunsLast(t.Context(), list); qlerror.CodeOf(err) != qlerror.Invalid {
			t.Errorf("%s: %v, want invalid", what, err)
		}
	}
}

// Beside the newest Run, each trigger carries the facts of its overlap
// warnings (view.WarningsOf): how many of its Runs are queued, and how many
// of its newest run.StarvingWindow Runs were cancelled before they started
// — a Run whose attempt started and a Run older than the window are not
// counted.
func testRunsLastOverlapFacts(t *testing.T, f Fixture) {
	pile := newDefs(t, f, "pile", quietCron(t, f))
	c := quietCron(t, f)
	c.Overlap = trigger.OverlapCancelPrevious
	starve := newDefs(t, f, "starve", c)
	initialise(t, f)
	facts := func(what string, triggerID string, queued, cancelledUnstarted int) {
		t.Helper()
		got, err := f.Last.RunsLast(t.Context(), []string{triggerID})
		if err != nil {
			t.Fatal(err)
		}
		if l := got[triggerID]; l.Queued != queued || l.CancelledUnstarted != cancelledUnstarted {
			t.Fatalf("%s: %d queued, %d of the newest %d cancelled before they started; want %d and %d",
				what, l.Queued, l.CancelledUnstarted, run.StarvingWindow, queued, cancelledUnstarted)
		}
	}
	id := starve.Trigger.TriggerID
	var last schedule.CommitParams
	for range 4 {
		last, _ = admitDue(t, f, id)
	}
	facts("four admissions under cancel_previous", id, 1, 3)
	if _, err := f.Finish(t.Context(), last.RunID, run.AttemptSucceeded); err != nil {
		t.Fatal(err)
	}
	facts("the newest one ran", id, 0, 3)
	// A cluster's Finish takes the oldest queued Run's grant: the pile's
	// first is the oldest while the pile's are the only queued Runs.
	var piled []string
	for range 3 {
		piled = append(piled, admitNow(t, f, pile.Trigger.TriggerID, 1_000))
	}
	facts("three admissions under allow", pile.Trigger.TriggerID, 3, 0)
	if _, err := f.Finish(t.Context(), piled[0], run.AttemptSucceeded); err != nil {
		t.Fatal(err)
	}
	facts("one of them finished", pile.Trigger.TriggerID, 2, 0)
	for range 2 {
		admitDue(t, f, id)
	}
	// Newest first: queued, cancelled, succeeded, cancelled, cancelled; the
	// first Run, cancelled too, is outside the window.
	facts("two more admissions", id, 1, 3)
}

// A trigger's newest Run carries when it was admitted and the Run it
// re-runs: a rerun repeats its original's occurrence however long after,
// so the triggers lists show it at its admission, not at that occurrence;
// a Run the clock admitted is shown at its occurrence.
func testARerunIsListedAtItsAdmission(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "again")
	orig := admitNow(t, f, d.Trigger.TriggerID, 600_000)
	if _, err := f.Finish(t.Context(), orig, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	listed := func() run.Last {
		t.Helper()
		got, err := f.Last.RunsLast(t.Context(), []string{d.Trigger.TriggerID})
		if err != nil {
			t.Fatal(err)
		}
		return got[d.Trigger.TriggerID]
	}
	first := runByID(t, f, orig)
	if l := listed(); l.RerunOf != "" || l.CreatedAtMs != first.CreatedAtMs || l.ListedAtMs() != first.ScheduledForMs {
		t.Fatalf("the clock's Run: listed at %d (admitted %d, rerun of %q); want its occurrence %d, admitted %d, no rerun",
			l.ListedAtMs(), l.CreatedAtMs, l.RerunOf, first.ScheduledForMs, first.CreatedAtMs)
	}
	again := runByID(t, f, rerun(t, f, schedule.RerunRequest{RunID: orig, RequestID: "again", Actor: "ops"}).RunID)
	if again.ScheduledForMs == again.CreatedAtMs {
		t.Fatalf("the rerun is for %d, which is when it was admitted: the test cannot tell its admission from its occurrence", again.ScheduledForMs)
	}
	if l := listed(); l.RunID != again.ID || l.RerunOf != orig || l.CreatedAtMs != again.CreatedAtMs || l.ListedAtMs() != again.CreatedAtMs {
		t.Fatalf("the rerun: %s listed at %d (admitted %d, rerun of %q); want %s at its admission %d, a rerun of %s, not its occurrence %d",
			l.RunID, l.ListedAtMs(), l.CreatedAtMs, l.RerunOf, again.ID, again.CreatedAtMs, orig, again.ScheduledForMs)
	}
}

// A backfill's Run is for an older occurrence, made however long after,
// as a rerun is: the triggers lists show a trigger's newest Run that a
// backfill made at its admission, marked a backfill, not at the
// occurrence it fills.
func testABackfillsRunIsListedAtItsAdmission(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "filled", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	now := nowOf(t, f)
	past := cronTimes(t, c, now-3*60*60_000, now-2*60*60_000)
	filled := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: past[0], ToMs: past[0]})
	if len(filled.RunIDs) != 1 {
		t.Fatalf("backfill %+v, want one Run for %d", filled, past[0])
	}
	r := runByID(t, f, filled.RunIDs[0])
	if r.ScheduledForMs == r.CreatedAtMs {
		t.Fatalf("the backfill's Run is for %d, which is when it was admitted: the test cannot tell its admission from its occurrence", r.ScheduledForMs)
	}
	got, err := f.Last.RunsLast(t.Context(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	l := got[id]
	if l.RunID != r.ID || l.Origin != run.OriginBackfill || l.Mark() != run.OriginBackfill || l.ListedAtMs() != r.CreatedAtMs {
		t.Fatalf("the backfill's Run: %s from %q marked %q, listed at %d; want %s from backfill marked backfill, at its admission %d, not its occurrence %d",
			l.RunID, l.Origin, l.Mark(), l.ListedAtMs(), r.ID, r.CreatedAtMs, r.ScheduledForMs)
	}
}
