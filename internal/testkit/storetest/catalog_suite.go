package storetest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// RunCatalog runs the catalog contract's guarantees against an adapter.
func RunCatalog(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"ProjectSaveReportsCreatedUpdatedUnchanged":               testProjectSaveChanges,
		"ProjectNameIsUnique":                                     testProjectNameUnique,
		"TaskRevisionsAdvanceOneByOne":                            testTaskRevisionsAdvance,
		"StaleExpectedRevisionIsAConflict":                        testStaleExpectedRevision,
		"IdenticalMutationReplayIsAcceptedAndWritesNothing":       testIdenticalReplay,
		"DriftedMutationReplayIsRejected":                         testDriftedReplay,
		"MutationReplayOverAnotherRevisionIsRejected":             testReplayOverAnotherRevision,
		"ArchivedProjectRejectsPublishing":                        testArchivedProjectRejects,
		"EnabledTriggerCannotPinADisabledTask":                    testEnabledTriggerDisabledTask,
		"TriggerNeverMovesToAnotherTask":                          testTriggerNeverMoves,
		"NewTriggerGetsAnUninitialisedScheduleRow":                testNewTriggerScheduleRow,
		"RepublishedTriggerResetsItsScheduleRow":                  testRepublishResetsRow,
		"StoredRevisionsReadBackWithTheirDigests":                 testReadBack,
		"FileWhoseLastObjectFailsPublishesNothing":                testFileIsAllOrNothing,
		"ArchivingFileWithAChangeSaysSo":                          testArchivingFileWithAChangeSaysSo,
		"EveryTriggerMovedToAnotherTaskIsReported":                testEveryTriggerMovedIsReported,
		"TransactionWhoseLastItemFailsWritesNothing":              testTxIsAllOrNothing,
		"EveryObjectOfAFileHasOnePublishTime":                     testOnePublishTimePerFile,
		"ReaderNeverSeesHalfAFile":                                testReaderNeverSeesHalfAFile,
		"AnApplyWithAStaleRevisionWritesNothing":                  testStaleRevisionWritesNothing,
		"AnApplyAskedAgainOverTheRevisionItMovedAnswersUnchanged": testStaleRevisionOfOwnChange,
		"TwoAppliesOverOneRevisionPublishOnce":                    testTwoAppliesOverOneRevision,
		"AnEnableWithAStaleRevisionWritesNothing":                 testStaleRevisionEnableWritesNothing,
		"TwoDisablesOverOneRevisionPublishOnce":                   testTwoEnablesOverOneRevision,
		"AnApplyCreatingOnlyIsRefusedWhenItsProjectExists":        testApplyCreatingOnlyRefusesAnExistingProject,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

func testProjectSaveChanges(t *testing.T, f Fixture) {
	p := project.Project{ID: ids.New(), Name: "alpha", Status: project.Active}
	for i, want := range []catalog.Change{catalog.Created, catalog.Unchanged} {
		got, err := f.Catalog.ProjectSave(t.Context(), p)
		if err != nil || got != want {
			t.Fatalf("save #%d: %s, %v; want %s", i+1, got, err, want)
		}
	}
	p.Status = project.Archived
	if got, err := f.Catalog.ProjectSave(t.Context(), p); err != nil || got != catalog.Updated {
		t.Fatalf("archive: %s, %v; want updated", got, err)
	}
	back, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil || !back.Same(p) {
		t.Fatalf("read back %+v, %v; want %+v", back, err, p)
	}
	_, err = f.Catalog.ProjectByName(t.Context(), "missing")
	requireCode(t, err, qlerror.NotFound, "unknown project")
	if qlerror.ReasonOf(err) != catalog.RefusalProjectMissing || !strings.Contains(err.Error(), "`ql apply -f FILE`") {
		t.Fatalf("unknown project: %v (reason %q); want project_missing naming `ql apply -f FILE`", err, qlerror.ReasonOf(err))
	}
}

func testProjectNameUnique(t *testing.T, f Fixture) {
	newProject(t, f, "alpha")
	_, err := f.Catalog.ProjectSave(t.Context(), project.Project{ID: ids.New(), Name: "alpha", Status: project.Active})
	requireCode(t, err, qlerror.Conflict, "second project named alpha")
}

func testTaskRevisionsAdvance(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	taskID := ids.New()
	r1 := publishTask(t, f, p.ID, taskID, 0, commandSpec("job", true))
	spec := commandSpec("job", true)
	spec.Command.Args = []string{"false"}
	r2 := publishTask(t, f, p.ID, taskID, 1, spec)
	if r1.Revision != 1 || r2.Revision != 2 || r2.CreatedAtMs < r1.CreatedAtMs {
		t.Fatalf("revisions %d@%d then %d@%d; want 1 then 2, in time order", r1.Revision, r1.CreatedAtMs, r2.Revision, r2.CreatedAtMs)
	}
	cur, err := f.Catalog.TaskByName(t.Context(), p.ID, "job")
	if err != nil || cur.Revision != 2 || cur.ContentDigest != r2.ContentDigest {
		t.Fatalf("current task: revision %d digest %s, %v; want 2 %s", cur.Revision, cur.ContentDigest, err, r2.ContentDigest)
	}
	_, _, err = f.Service.PublishTask(t.Context(), p.ID, ids.New(), 3, ids.New(), commandSpec("other", true))
	requireCode(t, err, qlerror.NotFound, "update of a task that does not exist")
}

func testStaleExpectedRevision(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	taskID := ids.New()
	publishTask(t, f, p.ID, taskID, 0, commandSpec("job", true))
	publishTask(t, f, p.ID, taskID, 1, commandSpec("job", false))
	_, _, err := f.Service.PublishTask(t.Context(), p.ID, taskID, 1, ids.New(), commandSpec("job", true))
	requireCode(t, err, qlerror.Conflict, "publish expecting revision 1 when the task is at 2")
	cur, _ := f.Catalog.TaskByName(t.Context(), p.ID, "job")
	if cur.Revision != 2 {
		t.Fatalf("a rejected publish moved the task to revision %d", cur.Revision)
	}
}

func testIdenticalReplay(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	taskID, mutation := ids.New(), ids.New()
	first, res1, err := f.Service.PublishTask(t.Context(), p.ID, taskID, 0, mutation, commandSpec("job", true))
	if err != nil || res1.Replayed {
		t.Fatalf("first publish: %+v, %v", res1, err)
	}
	_, res2, err := f.Service.PublishTask(t.Context(), p.ID, taskID, 0, mutation, commandSpec("job", true))
	if err != nil || !res2.Replayed || res2.Revision != first.Revision || res2.CreatedAtMs != first.CreatedAtMs {
		t.Fatalf("replay: %+v, %v; want the original revision %d replayed", res2, err, first.Revision)
	}
	cur, _ := f.Catalog.TaskByName(t.Context(), p.ID, "job")
	if cur.Revision != 1 {
		t.Fatalf("replay moved the task to revision %d", cur.Revision)
	}
	tg := ids.New()
	spec := trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)}
	tmut := ids.New()
	if _, _, err := f.Service.PublishTrigger(t.Context(), p.ID, tg, first, 0, tmut, spec); err != nil {
		t.Fatal(err)
	}
	before := row(t, f, tg)
	_, res3, err := f.Service.PublishTrigger(t.Context(), p.ID, tg, first, 0, tmut, spec)
	if err != nil || !res3.Replayed {
		t.Fatalf("trigger replay: %+v, %v", res3, err)
	}
	if after := row(t, f, tg); after.StateVersion != before.StateVersion || after.ClaimVersion != before.ClaimVersion {
		t.Fatalf("trigger replay reset the schedule row: %+v -> %+v", before, after)
	}
}

func testDriftedReplay(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	taskID, mutation := ids.New(), ids.New()
	first, _, err := f.Service.PublishTask(t.Context(), p.ID, taskID, 0, mutation, commandSpec("job", true))
	if err != nil {
		t.Fatal(err)
	}
	drifted := commandSpec("job", true)
	drifted.Command.Args = []string{"drifted"}
	_, _, err = f.Service.PublishTask(t.Context(), p.ID, taskID, 0, mutation, drifted)
	requireCode(t, err, qlerror.MutationDrift, "same mutation id, other content")
	tg, tmut := ids.New(), ids.New()
	if _, _, err := f.Service.PublishTrigger(t.Context(), p.ID, tg, first, 0, tmut, trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)}); err != nil {
		t.Fatal(err)
	}
	other := quietCron(t, f)
	other.Expression = "*/5 * * * *"
	_, _, err = f.Service.PublishTrigger(t.Context(), p.ID, tg, first, 0, tmut, trigger.Spec{Name: "tick", Enabled: true, Cron: other})
	requireCode(t, err, qlerror.MutationDrift, "same trigger mutation id, other content")
}

// testReplayOverAnotherRevision: a mutation id names one request, so
// replaying it with identical content over another expected revision is a
// different request, not a retry of the first.
func testReplayOverAnotherRevision(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	taskID, first, second := ids.New(), ids.New(), ids.New()
	rev1, _, err := f.Service.PublishTask(t.Context(), p.ID, taskID, 0, first, commandSpec("job", true))
	if err != nil {
		t.Fatal(err)
	}
	changed := commandSpec("job", true)
	changed.Command.Args = []string{"changed"}
	if _, _, err := f.Service.PublishTask(t.Context(), p.ID, taskID, 1, second, changed); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.Service.PublishTask(t.Context(), p.ID, taskID, 1, first, commandSpec("job", true))
	requireCode(t, err, qlerror.MutationDrift, "task mutation replayed over revision 1")

	tg, tmut := ids.New(), ids.New()
	spec := trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)}
	if _, _, err := f.Service.PublishTrigger(t.Context(), p.ID, tg, rev1, 0, tmut, spec); err != nil {
		t.Fatal(err)
	}
	later := spec
	later.Enabled = false
	publishTrigger(t, f, p.ID, tg, rev1, 1, later)
	_, _, err = f.Service.PublishTrigger(t.Context(), p.ID, tg, rev1, 1, tmut, spec)
	requireCode(t, err, qlerror.MutationDrift, "trigger mutation replayed over revision 1")
	if cur, _ := f.Catalog.TaskByName(t.Context(), p.ID, "job"); cur.Revision != 2 {
		t.Fatalf("a rejected replay moved the task to revision %d, want 2", cur.Revision)
	}
}

func testArchivedProjectRejects(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	tk := publishTask(t, f, p.ID, ids.New(), 0, commandSpec("job", true))
	p.Status = project.Archived
	if _, err := f.Catalog.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.Service.PublishTask(t.Context(), p.ID, tk.TaskID, 1, ids.New(), commandSpec("job", false))
	requireCode(t, err, qlerror.FailedPrecondition, "task publish into an archived project")
	_, _, err = f.Service.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)})
	requireCode(t, err, qlerror.FailedPrecondition, "trigger publish into an archived project")
}

func testEnabledTriggerDisabledTask(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	disabled := publishTask(t, f, p.ID, ids.New(), 0, commandSpec("job", false))
	spec := trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)}
	_, _, err := f.Service.PublishTrigger(t.Context(), p.ID, ids.New(), disabled, 0, ids.New(), spec)
	requireCode(t, err, qlerror.FailedPrecondition, "enabled trigger pinning a disabled task (service)")
	// The store enforces it too, whoever calls it.
	rev, err := trigger.NewRevision(p.ID, ids.New(), disabled.TaskID, disabled.Revision, disabled.ContentDigest, 0, ids.New(), spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Catalog.TriggerPublish(t.Context(), catalog.TriggerPublishParams{Revision: rev})
	requireCode(t, err, qlerror.FailedPrecondition, "enabled trigger pinning a disabled task (store)")
	spec.Enabled = false
	publishTrigger(t, f, p.ID, ids.New(), disabled, 0, spec)
}

func testTriggerNeverMoves(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	other := publishTask(t, f, d.Project.ID, ids.New(), 0, commandSpec("other", true))
	_, _, err := f.Service.PublishTrigger(t.Context(), d.Project.ID, d.Trigger.TriggerID, other, 1, ids.New(), d.Trigger.Spec)
	requireCode(t, err, qlerror.FailedPrecondition, "re-pinning a trigger to another task")
}

func testNewTriggerScheduleRow(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	r := row(t, f, d.Trigger.TriggerID)
	if r.TriggerRevision != 1 || r.NextFireAtMs != nil || r.LastScheduledAtMs != nil || r.StateVersion != 1 || r.ClaimOwner != nil {
		t.Fatalf("new schedule row %+v; want revision 1, no cursor, state version 1, no claim", r)
	}
}

func testRepublishResetsRow(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	before := row(t, f, d.Trigger.TriggerID)
	if before.NextFireAtMs == nil {
		t.Fatal("initialised row has no cursor")
	}
	spec := d.Trigger.Spec
	spec.Cron.Expression = "*/2 * * * *"
	publishTrigger(t, f, d.Project.ID, d.Trigger.TriggerID, d.Task, 1, spec)
	after := row(t, f, d.Trigger.TriggerID)
	// Single-node stores have no claims: their claim version stays 0 (see
	// Row) and state_version alone fences old tickets.
	leaseless := before.ClaimVersion == 0 && after.ClaimVersion == 0
	if after.TriggerRevision != 2 || after.NextFireAtMs != nil || after.ClaimOwner != nil ||
		after.StateVersion != before.StateVersion+1 || (!leaseless && after.ClaimVersion != before.ClaimVersion+1) {
		t.Fatalf("republish: %+v -> %+v; want revision 2, cursor and claim cleared, state and claim versions +1", before, after)
	}
}

func testReadBack(t *testing.T, f Fixture) {
	p := newProject(t, f, "alpha")
	spec := commandSpec("job", true)
	spec.Labels = map[string]string{"team": "ops"}
	spec.Command.Env = []task.EnvVar{{Name: "B", Value: "2"}, {Name: "A", SecretRef: "db.password"}}
	spec.Command.WorkingDir = "/srv"
	spec.Command.RunAs = task.RunAs{User: "svc", Group: "svc-data"}
	spec.Command.KillGraceMs = 1500
	spec.Command.Retry = task.RetryPolicy{MaxAttempts: 3, BackoffMs: 10_000, On: []string{task.RetryOnLost, task.RetryOnTimedOut}}
	spec.Command.Placement = task.Placement{Labels: map[string]string{"region": "eu", "gpu": "true"}}
	tk := publishTask(t, f, p.ID, ids.New(), 0, spec)
	got, err := f.Catalog.TaskByName(t.Context(), p.ID, "job")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Command.RunAs != spec.Command.RunAs || got.Spec.Command.KillGraceMs != 1500 {
		t.Fatalf("runAs and killGrace read back as %+v, %d", got.Spec.Command.RunAs, got.Spec.Command.KillGraceMs)
	}
	if !reflect.DeepEqual(got.Spec.Command.Retry, spec.Command.Retry) || !reflect.DeepEqual(got.Spec.Command.Placement, spec.Command.Placement) {
		t.Fatalf("retry and placement read back as %+v, %+v; want %+v, %+v", got.Spec.Command.Retry, got.Spec.Command.Placement, spec.Command.Retry, spec.Command.Placement)
	}
	if got.ContentDigest != tk.ContentDigest || got.VerifyDigest() != nil {
		t.Fatalf("task read back with digest %s (verify: %v), want %s", got.ContentDigest, got.VerifyDigest(), tk.ContentDigest)
	}
	tg := publishTrigger(t, f, p.ID, ids.New(), tk, 0, trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)})
	gotTg, err := f.Catalog.TriggerByName(t.Context(), p.ID, "tick")
	if err != nil || gotTg.ContentDigest != tg.ContentDigest || gotTg.TaskRevision != tk.Revision {
		t.Fatalf("trigger read back %+v, %v", gotTg, err)
	}
	// Time policies read back as published, a zero catch-up window
	// included, and digest as they did.
	c := quietCron(t, f)
	c.JitterMs, c.StartAtMs, c.EndAtMs, c.HasCatchUpWindow = 30_000, 1_790_000_000_000, 1_900_000_000_000, true
	timed := publishTrigger(t, f, p.ID, ids.New(), tk, 0, trigger.Spec{Name: "timed", Enabled: true, Cron: c})
	gotTimed, err := f.Catalog.TriggerByName(t.Context(), p.ID, "timed")
	if err != nil || gotTimed.Spec.Cron != c || gotTimed.ContentDigest != timed.ContentDigest || gotTimed.VerifyDigest() != nil {
		t.Fatalf("trigger with time policies read back %+v, %v; want cron %+v", gotTimed, err, c)
	}
}
