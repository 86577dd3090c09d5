package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// replayCases are the guarantees of a manual request asked again with its
// request id, as a client does whose first answer was lost.
func replayCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"ARunNowAskedAgainAfterItsTriggerIsDisabledOrArchivedAnswersTheRunItMade": testRunNowReplayOutlivesTheTrigger,
		"ARerunAskedAgainAfterItsTriggerIsDisabledAnswersTheRunItMade":            testRerunReplayOutlivesTheTrigger,
		"ARequestIDAskedAgainWithAnotherForceIsRefusedAsReused":                   testRequestIDReused,
		"ABackfillAskedAgainNamesTheRunsTheFirstOneAdmitted":                      testBackfillReplayNamesItsRuns,
	}
}

// setEnabled enables or disables d's trigger as `ql triggers enable` does.
func setEnabled(t *testing.T, f Fixture, d defs, on bool) {
	t.Helper()
	if _, err := f.Service.TriggerSetEnabled(t.Context(), catalog.EnableRequest{ProjectID: d.Project.ID, Name: d.Trigger.Spec.Name, Enabled: on, Actor: "conformance"}); err != nil {
		t.Fatalf("set trigger %s enabled=%v: %v", d.Trigger.Spec.Name, on, err)
	}
}

// requireReason fails unless err is a refusal for reason.
func requireReason(t *testing.T, err error, reason qlerror.Reason, what string) {
	t.Helper()
	if got := qlerror.ReasonOf(err); got != reason {
		t.Fatalf("%s: %v (reason %q), want a refusal for %s", what, err, got, reason)
	}
}

// requireReplayed fails unless res answers the Run runID, not created now.
func requireReplayed(t *testing.T, res schedule.RunNowResult, err error, runID, what string) {
	t.Helper()
	if err != nil || res.Created || res.RunID != runID || res.Skipped != "" {
		t.Fatalf("%s: %+v, %v; want the Run %s it made, not created", what, res, err, runID)
	}
}

// A run now's Run exists whatever becomes of its trigger, so asking again
// with its request id answers it even once the trigger is disabled or its
// project archived; only a new request is refused for them.
func testRunNowReplayOutlivesTheTrigger(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	a := newDefs(t, f, "beta", quietCron(t, f))
	initialise(t, f)
	first := runNow(t, f, schedule.RunNowRequest{TriggerID: d.Trigger.TriggerID, RequestID: "ci-1"})
	setEnabled(t, f, d, false)
	again, err := f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: d.Trigger.TriggerID, RequestID: "ci-1"})
	requireReplayed(t, again, err, first.RunID, "run now asked again once its trigger is disabled")
	_, err = f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: d.Trigger.TriggerID, RequestID: "ci-2"})
	requireReason(t, err, schedule.RefusalTriggerDisabled, "a new run now of the disabled trigger")

	made := runNow(t, f, schedule.RunNowRequest{TriggerID: a.Trigger.TriggerID, RequestID: "ci-1"})
	setStatus(t, f, a, project.Archived)
	again, err = f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: a.Trigger.TriggerID, RequestID: "ci-1"})
	requireReplayed(t, again, err, made.RunID, "run now asked again once its project is archived")
	_, err = f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: a.Trigger.TriggerID, RequestID: "ci-2"})
	requireReason(t, err, schedule.RefusalProjectArchived, "a new run now of the archived project's trigger")
	if n := len(runsOf(t, f, d.Trigger.TriggerID)) + len(runsOf(t, f, a.Trigger.TriggerID)); n != 2 {
		t.Fatalf("%d runs, want the two the first requests made", n)
	}
}

// A re-run asked again with its request id answers the re-run it made
// once the trigger is disabled; a new re-run request is refused.
func testRerunReplayOutlivesTheTrigger(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	orig := runNow(t, f, schedule.RunNowRequest{TriggerID: d.Trigger.TriggerID, RequestID: "first"})
	if _, err := f.Finish(t.Context(), orig.RunID, run.AttemptFailed); err != nil {
		t.Fatalf("finish the original: %v", err)
	}
	made := rerun(t, f, schedule.RerunRequest{RunID: orig.RunID, RequestID: "retry-1"})
	setEnabled(t, f, d, false)
	again, err := f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: orig.RunID, RequestID: "retry-1"})
	requireReplayed(t, schedule.RunNowResult(again), err, made.RunID, "re-run asked again once its trigger is disabled")
	_, err = f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: orig.RunID, RequestID: "retry-2"})
	requireReason(t, err, schedule.RefusalTriggerDisabled, "a new re-run of the disabled trigger's Run")
	if n := len(runsOf(t, f, d.Trigger.TriggerID)); n != 2 {
		t.Fatalf("%d runs, want the original and its one re-run", n)
	}
}

// A request id names one request: asked again with another force it is
// refused as reused, naming the Run it made, and nothing is written; asked
// as it was, it answers that Run.
func testRequestIDReused(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	id := d.Trigger.TriggerID
	initialise(t, f)
	plain := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "plain"})
	_, err := f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "plain", Force: true})
	requireReason(t, err, schedule.RefusalRequestIDReused, "request plain asked again with force")
	requireCode(t, err, qlerror.Conflict, "request plain asked again with force")
	forced := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "forced", Force: true})
	_, err = f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "forced"})
	requireReason(t, err, schedule.RefusalRequestIDReused, "request forced asked again without force")
	again, err := f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "forced", Force: true})
	requireReplayed(t, again, err, forced.RunID, "request forced asked as it was")
	again, err = f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "plain"})
	requireReplayed(t, again, err, plain.RunID, "request plain asked as it was")
	if n := len(runsOf(t, f, id)); n != 2 {
		t.Fatalf("%d runs, want the two the first requests made", n)
	}
}

// A backfill asked again admits nothing and names, in occurrence order,
// the Runs the occurrences already have: those the first one admitted, so
// a client that lost the first answer learns them.
func testBackfillReplayNamesItsRuns(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	now := nowOf(t, f)
	req := schedule.BackfillRequest{TriggerID: id, FromMs: now - 5*60*60_000, ToMs: now - 1, Actor: "ci"}
	first := backfill(t, f, req)
	if first.Admitted < 2 || len(first.RunIDs) != first.Admitted || len(first.ExistingRunIDs) != 0 {
		t.Fatalf("first backfill %+v; want several occurrences admitted and none existing", first)
	}
	again := backfill(t, f, req)
	if again.Admitted != 0 || len(again.RunIDs) != 0 || !slices.Equal(again.ExistingRunIDs, first.RunIDs) {
		t.Fatalf("backfill asked again: %+v; want nothing admitted and the existing Runs %v the first one admitted", again, first.RunIDs)
	}
	// A window cut by the cap names the Runs of the occurrences it took.
	req.Max = 1
	if cut := backfill(t, f, req); !cut.Truncated || !slices.Equal(cut.ExistingRunIDs, first.RunIDs[:1]) {
		t.Fatalf("capped backfill asked again: %+v; want the first occurrence's Run %s alone", cut, first.RunIDs[0])
	}
}
