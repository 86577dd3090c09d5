package storetest

import (
	"errors"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

func rerun(t *testing.T, f Fixture, r schedule.RerunRequest) schedule.RerunResult {
	t.Helper()
	res, err := f.Manual.RunRerun(t.Context(), r)
	if err != nil {
		t.Fatalf("re-run %s (request %q): %v", r.RunID, r.RequestID, err)
	}
	return res
}

func runByID(t *testing.T, f Fixture, id string) run.Run {
	t.Helper()
	d, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatalf("read run %s: %v", id, err)
	}
	return d.Run
}

// A re-run repeats what ran: after the task and trigger are republished,
// it still pins the original's revisions and execution revision, keeps
// its scheduled time, names it in rerun_of, and one request id makes one
// Run however often it is sent.
func testRerunRepeatsTheOriginal(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	id := d.Trigger.TriggerID
	initialise(t, f)
	orig := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "first"})
	if _, err := f.Finish(t.Context(), orig.RunID, run.AttemptFailed); err != nil {
		t.Fatalf("finish the original: %v", err)
	}
	spec := commandSpec("job", true)
	spec.Command.Args = []string{"false"}
	tk2 := publishTask(t, f, d.Project.ID, d.Task.TaskID, d.Task.Revision, spec)
	publishTrigger(t, f, d.Project.ID, id, tk2, d.Trigger.Revision, trigger.Spec{Name: "tick", Enabled: true, Cron: d.Trigger.Spec.Cron})

	first := rerun(t, f, schedule.RerunRequest{RunID: orig.RunID, RequestID: "again-1", Actor: "ops"})
	if !first.Created || ids.Validate("run", first.RunID) != nil || first.Skipped != "" {
		t.Fatalf("re-run: %+v, want a created Run", first)
	}
	again := rerun(t, f, schedule.RerunRequest{RunID: orig.RunID, RequestID: "again-1", Actor: "ops"})
	if again.Created || again.RunID != first.RunID {
		t.Fatalf("repeated re-run request: %+v, want the first one's Run %s, not created", again, first.RunID)
	}
	o, r := runByID(t, f, orig.RunID), runByID(t, f, first.RunID)
	if r.RerunOf != o.ID || r.IdempotencyKey != schedule.RerunKey(o.ID, "again-1") || r.State != run.Queued ||
		r.TaskRevision != o.TaskRevision || r.TriggerRevision != o.TriggerRevision || r.ExecutionRevisionID != o.ExecutionRevisionID ||
		r.ScheduledForMs != o.ScheduledForMs || r.TriggerID != id {
		t.Fatalf("re-run %+v of %+v; want it linked, keyed on the request and pinned to the original's revisions and time", r, o)
	}
	if o.RerunOf != "" {
		t.Fatalf("the original names a Run it re-runs: %q", o.RerunOf)
	}
	if c := counts(t, f, id); c.Runs != 2 {
		t.Fatalf("counts %+v, want the original and one re-run", c)
	}
	now := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "current", Force: true})
	if cur := runByID(t, f, now.RunID); cur.TaskRevision != tk2.Revision || cur.TaskRevision == r.TaskRevision {
		t.Fatalf("run now after the republish pins task revision %d, want the current %d (the re-run pins %d)", cur.TaskRevision, tk2.Revision, r.TaskRevision)
	}
}

// Only a finished Run can be re-run: an unfinished one is refused with a
// NotFinishedError, an unknown one is NotFound, a malformed request is
// Invalid, and none of them writes a Run.
func testRerunRefusals(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	id := d.Trigger.TriggerID
	initialise(t, f)
	queued := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	_, err := f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: queued.RunID, RequestID: "x"})
	var nf *schedule.NotFinishedError
	if !errors.As(err, &nf) || nf.RunID != queued.RunID || nf.State != run.Queued {
		t.Fatalf("re-run of a queued Run: %v, want a NotFinishedError naming it queued", err)
	}
	requireCode(t, err, qlerror.FailedPrecondition, "re-run of a queued Run")
	_, err = f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: ids.New()})
	requireCode(t, err, qlerror.NotFound, "re-run of an unknown Run")
	_, err = f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: "not-an-id"})
	requireCode(t, err, qlerror.Invalid, "re-run of a malformed run id")
	_, err = f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: queued.RunID, RequestID: "a b"})
	requireCode(t, err, qlerror.Invalid, "a re-run request id with a space")
	if n := len(runsOf(t, f, id)); n != 1 {
		t.Fatalf("%d runs after refused re-runs, want only the queued one", n)
	}
}

// A re-run request asked again after retention deleted its original
// answers the Run it made, which retention keeps (unfinished, or younger
// than the original): the request's own Run exists, and a client that
// lost the first answer must learn it rather than be told the original is
// missing. A new request for the deleted original is still run_missing.
func testRerunAskedAgainAfterRetentionDeletedItsOriginal(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	orig := seed(t, f, template, 1, 40*day, 0)[0]
	first := rerun(t, f, schedule.RerunRequest{RunID: orig, RequestID: "after-retention", Actor: "ops"})
	if !first.Created {
		t.Fatalf("re-run of the old Run: %+v, want a created Run", first)
	}
	pass(t, f, retention.Policy{RunsAge: 30 * day})
	requireGone(t, f, []string{orig})
	again, err := f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: orig, RequestID: "after-retention", Actor: "ops"})
	if err != nil || again.Created || again.RunID != first.RunID {
		t.Fatalf("the re-run request asked again after its original was deleted: %+v, %v; want its Run %s, not created", again, err, first.RunID)
	}
	_, err = f.Manual.RunRerun(t.Context(), schedule.RerunRequest{RunID: orig, RequestID: "new-request"})
	requireCode(t, err, qlerror.NotFound, "a new re-run request of a deleted Run")
	if qlerror.ReasonOf(err) != schedule.RefusalRunMissing {
		t.Fatalf("a new re-run request of a deleted Run: %v (reason %q); want %s", err, qlerror.ReasonOf(err), schedule.RefusalRunMissing)
	}
}
