package storetest

import (
	"maps"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// RunProjectDelete runs a project's deletion against an adapter: what
// goes, what stays, and what refuses it.
func RunProjectDelete(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"DeletingAProjectRemovesEveryRowAndLogOfIt":                 testProjectDeleteRemovesAll,
		"AProjectWithUnfinishedRunsIsNotDeleted":                    testProjectDeleteUnfinished,
		"AnUnarchivedProjectIsNotDeleted":                           testProjectDeleteActive,
		"DeletingOneProjectLeavesTheOthersUntouched":                testProjectDeleteOthers,
		"DryRunDeletesNothing":                                      testProjectDeleteDryRun,
		"ALiveTokenBoundToTheProjectKeepsItUntilRevoked":            testProjectDeleteBoundToken,
		"ADeletionIsRecordedWithWhoAskedAndKeepsTheProjectsRecords": testProjectDeleteAudited,
		"ADeletionWhoseRecordCannotBeWrittenDeletesNothing":         testProjectDeleteUnrecorded,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// deletable is a project with one trigger, finished Runs with logs,
// ledger entries and a pause record: its finished Runs' ids and their
// attempts, and a Run left queued when asked for.
type deletable struct {
	defs
	runs, attempts []string
	queued         string
}

func seedDeletable(t *testing.T, f Fixture, name string) deletable {
	t.Helper()
	return seedDeletableQueued(t, f, name, false)
}

func seedDeletableQueued(t *testing.T, f Fixture, name string, queue bool) deletable {
	t.Helper()
	d := initialisedDefs(t, f, name)
	template := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if _, err := f.FinishWithOutput(t.Context(), template, run.AttemptSucceeded, []byte("hello from "+name+"\n")); err != nil {
		t.Fatalf("finish %s: %v", template, err)
	}
	runs := append(seed(t, f, template, 3, day, logSize), template)
	var queued string
	if queue {
		queued = admitNow(t, f, d.Trigger.TriggerID, 500)
	}
	if err := f.Tamper.SeedLedger(t.Context(), d.Trigger.TriggerID, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: d.Trigger.TriggerID, Pause: true, Note: "old", Actor: "ops"}); err != nil {
		t.Fatal(err)
	}
	return deletable{defs: d, runs: runs, attempts: attemptsOf(t, f, runs), queued: queued}
}

// TableCounts are the rows of an adapter's ProjectRows query, a table's
// name and a count each, as either database driver gives them.
type TableCounts interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// CountsByTable reads rows into a count per table: an adapter's
// ProjectRows once it has run its query.
func CountsByTable(rows TableCounts) (map[string]int64, error) {
	out := map[string]int64{}
	for rows.Next() {
		var table string
		var n int64
		if err := rows.Scan(&table, &n); err != nil {
			return nil, err
		}
		out[table] = n
	}
	return out, rows.Err()
}

func projectRows(t *testing.T, f Fixture, projectID string) map[string]int64 {
	t.Helper()
	rows, err := f.ProjectRows(t.Context(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func deleteProject(t *testing.T, f Fixture, name string, dry bool) (project.DeleteResult, error) {
	t.Helper()
	return f.ProjectDeleter.ProjectDelete(t.Context(), project.DeleteRequest{Project: name, DryRun: dry, Batch: 2})
}

func testProjectDeleteRemovesAll(t *testing.T, f Fixture) {
	d := seedDeletable(t, f, "gone")
	setStatus(t, f, d.defs, project.Archived)
	before := projectRows(t, f, d.Project.ID)
	for _, table := range []string{"tasks", "triggers", "runs", "attempts", "run_events", "occurrence_ledger", "trigger_schedule_audit", "trigger_schedules"} {
		if before[table] == 0 {
			t.Fatalf("the seeded project holds no %s (%v): the test would prove nothing", table, before)
		}
	}
	requireLogs(t, f, d.attempts, true)
	var batches []project.DeleteCounts
	res, err := f.ProjectDeleter.ProjectDelete(t.Context(), project.DeleteRequest{Project: "gone", Batch: 2, OnBatch: func(c project.DeleteCounts) { batches = append(batches, c) }})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if res.Deleted.Runs != 4 || res.Deleted.Attempts != 4 || res.Deleted.Tasks != 1 || res.Deleted.Triggers != 1 || res.Deleted.Logs != 4 || res.Deleted.Ledger == 0 {
		t.Fatalf("deleted %+v; want 4 Runs, 4 attempts and logs, 1 task, 1 trigger, the ledger", res.Deleted)
	}
	if len(batches) != 2 || batches[1].Runs != 4 {
		t.Fatalf("progress %+v; want two batches of 2 Runs", batches)
	}
	for table, n := range projectRows(t, f, d.Project.ID) {
		if n != 0 {
			t.Errorf("after the deletion %s still holds %d rows of the project", table, n)
		}
	}
	requireGone(t, f, d.runs)
	requireLogs(t, f, d.attempts, false)
	if _, err := deleteProject(t, f, "gone", false); qlerror.ReasonOf(err) != schedule.RefusalProjectUnknown {
		t.Fatalf("deleting it again: %v; want %s", err, schedule.RefusalProjectUnknown)
	}
}

func testProjectDeleteUnfinished(t *testing.T, f Fixture) {
	d := seedDeletableQueued(t, f, "busy", true)
	setStatus(t, f, d.defs, project.Archived)
	before := projectRows(t, f, d.Project.ID)
	_, err := deleteProject(t, f, "busy", false)
	if qlerror.ReasonOf(err) != project.RefusalUnfinishedRuns || qlerror.ParamsOf(err)["runs"] != "1" {
		t.Fatalf("delete with a queued Run: %v; want %s naming 1 Run", err, project.RefusalUnfinishedRuns)
	}
	if after := projectRows(t, f, d.Project.ID); !maps.Equal(before, after) {
		t.Fatalf("a refused deletion changed rows: %v, then %v", before, after)
	}
	requireLogs(t, f, d.attempts, true)
	if _, _, err := f.Cancel(t.Context(), d.queued, "ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := deleteProject(t, f, "busy", false); err != nil {
		t.Fatalf("delete once the Run is cancelled: %v", err)
	}
}

func testProjectDeleteActive(t *testing.T, f Fixture) {
	d := seedDeletable(t, f, "live")
	before := projectRows(t, f, d.Project.ID)
	_, err := deleteProject(t, f, "live", false)
	if qlerror.ReasonOf(err) != project.RefusalNotArchived || !qlerror.Is(err, qlerror.FailedPrecondition) {
		t.Fatalf("delete an active project: %v; want %s", err, project.RefusalNotArchived)
	}
	if after := projectRows(t, f, d.Project.ID); !maps.Equal(before, after) {
		t.Fatalf("a refused deletion changed rows: %v, then %v", before, after)
	}
	requireLogs(t, f, d.attempts, true)
}

func testProjectDeleteOthers(t *testing.T, f Fixture) {
	keep := seedDeletable(t, f, "keep")
	gone := seedDeletable(t, f, "gone")
	setStatus(t, f, gone.defs, project.Archived)
	before := projectRows(t, f, keep.Project.ID)
	if _, err := deleteProject(t, f, gone.Project.ID, false); err != nil {
		t.Fatalf("delete by id: %v", err)
	}
	if after := projectRows(t, f, keep.Project.ID); !maps.Equal(before, after) {
		t.Fatalf("the other project's rows changed: %v, then %v", before, after)
	}
	requireLogs(t, f, keep.attempts, true)
	for _, id := range keep.runs {
		requireState(t, f, id, run.Succeeded)
	}
}

func testProjectDeleteDryRun(t *testing.T, f Fixture) {
	d := seedDeletable(t, f, "dry")
	setStatus(t, f, d.defs, project.Archived)
	before := projectRows(t, f, d.Project.ID)
	res, err := deleteProject(t, f, "dry", true)
	if err != nil || !res.DryRun || res.WouldRefuse != nil {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if res.Deleted.Runs != before["runs"] || res.Deleted.Attempts != before["attempts"] || res.Deleted.Events != before["run_events"] || res.Deleted.Logs != 4 {
		t.Fatalf("dry run counted %+v; the project holds %v and 4 logs", res.Deleted, before)
	}
	if after := projectRows(t, f, d.Project.ID); !maps.Equal(before, after) {
		t.Fatalf("a dry run changed rows: %v, then %v", before, after)
	}
	requireLogs(t, f, d.attempts, true)
	active := seedDeletable(t, f, "active")
	res, err = deleteProject(t, f, "active", true)
	if err != nil || qlerror.ReasonOf(res.WouldRefuse) != project.RefusalNotArchived || res.Deleted.Runs != 4 {
		t.Fatalf("dry run of an active project: %+v, %v; want its counts and the refusal it would meet", res, err)
	}
	requireLogs(t, f, active.attempts, true)
}

func testProjectDeleteBoundToken(t *testing.T, f Fixture) {
	d := seedDeletable(t, f, "bound")
	setStatus(t, f, d.defs, project.Archived)
	if _, _, err := apitoken.Create(t.Context(), f.Tokens, "test", ids.New(), "bound-ci", apitoken.Operate, 0, "other", "bound"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := apitoken.Create(t.Context(), f.Tokens, "test", ids.New(), "everything", apitoken.Operate, 0); err != nil {
		t.Fatal(err)
	}
	before := projectRows(t, f, d.Project.ID)
	_, err := deleteProject(t, f, "bound", false)
	if qlerror.ReasonOf(err) != project.RefusalBoundTokens || qlerror.ParamsOf(err)["tokens"] != "bound-ci" {
		t.Fatalf("delete with a bound token: %v; want %s naming bound-ci only", err, project.RefusalBoundTokens)
	}
	if after := projectRows(t, f, d.Project.ID); !maps.Equal(before, after) {
		t.Fatalf("a refused deletion changed rows: %v, then %v", before, after)
	}
	if err := f.Tokens.TokenRevoke(t.Context(), "bound-ci", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := deleteProject(t, f, "bound", false); err != nil {
		t.Fatalf("delete once the token is revoked: %v", err)
	}
}

// RunProjectDeleteLogFiles runs, against an adapter that keeps attempt
// logs as files (its fixture sets BlockLogRemoval), the case of a log
// file the deletion could not remove; an adapter whose logs are rows has
// no such case and does not run it.
func RunProjectDeleteLogFiles(t *testing.T, newFixture Factory) {
	t.Run("ALogFileLeftBehindIsRemovedWhenTheDeletionIsAskedAgain", func(t *testing.T) {
		t.Parallel()
		testProjectDeleteLeftovers(t, newFixture(t))
	})
}

func testProjectDeleteLeftovers(t *testing.T, f Fixture) {
	if f.BlockLogRemoval == nil {
		t.Fatal("the fixture sets no BlockLogRemoval: run this case only for an adapter keeping log files")
	}
	d := seedDeletable(t, f, "stuck")
	setStatus(t, f, d.defs, project.Archived)
	unblock := f.BlockLogRemoval(t, d.attempts[0])
	res, err := deleteProject(t, f, "stuck", false)
	if err != nil || len(res.Kept) != 1 || res.Kept[0].Err == nil {
		t.Fatalf("delete with one log file that cannot be removed: %+v, %v; want it deleted, naming the one file kept", res, err)
	}
	requireLogs(t, f, d.attempts[1:], false)
	left := projectRows(t, f, d.Project.ID)
	if left["deleted_project_logs"] != 1 || left["runs"] != 0 || left["projects"] != 0 {
		t.Fatalf("after the deletion: %v; want the project gone and the one file left named", left)
	}
	unblock()
	res, err = deleteProject(t, f, "stuck", false)
	if err != nil || !res.Leftovers || len(res.Kept) != 0 {
		t.Fatalf("delete again: %+v, %v; want what was left removed", res, err)
	}
	requireLogs(t, f, d.attempts, false)
	if n := projectRows(t, f, d.Project.ID)["deleted_project_logs"]; n != 0 {
		t.Fatalf("%d log files still named after they were removed", n)
	}
	if _, err := deleteProject(t, f, "stuck", false); qlerror.ReasonOf(err) != schedule.RefusalProjectUnknown {
		t.Fatalf("delete once nothing is left: %v; want %s", err, schedule.RefusalProjectUnknown)
	}
}

// testProjectDeleteAudited: a deletion is recorded with who asked and what
// it removed, in its transaction, and the project's own records of the
// trail stay; its triggers' pause records go with the triggers they name.
func testProjectDeleteAudited(t *testing.T, f Fixture) {
	d := seedDeletable(t, f, "gone")
	pauseProject(t, f, "gone", true, "winding down")
	setStatus(t, f, d.defs, project.Archived)
	res, err := f.ProjectDeleter.ProjectDelete(t.Context(), project.DeleteRequest{Project: "gone", Actor: "api:cleanup@192.0.2.7"})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	got := auditAll(t, f, audit.Query{Project: "gone"})
	want := []string{
		"project.deleted api:cleanup@192.0.2.7 project gone gone " + res.Deleted.String(),
		"project.paused conformance project gone gone 0 trigger(s): winding down",
	}
	if lines := auditLines(got); !slices.Equal(lines, want) {
		t.Fatalf("trail of the deleted project %q; want %q", lines, want)
	}
	if got[0].ObjectID != d.Project.ID || res.Deleted.Runs != 4 || res.Deleted.Audit == 0 {
		t.Fatalf("record %+v, counts %+v; want the project's id %s and its 4 Runs and pause records counted", got[0], res.Deleted, d.Project.ID)
	}
}

// testProjectDeleteUnrecorded: a deletion whose record the trail refuses
// deletes nothing.
func testProjectDeleteUnrecorded(t *testing.T, f Fixture) {
	d := seedDeletable(t, f, "kept")
	setStatus(t, f, d.defs, project.Archived)
	before := projectRows(t, f, d.Project.ID)
	if err := f.Tamper.FailAuditWrites(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := deleteProject(t, f, "kept", false); err == nil {
		t.Fatal("a deletion whose record the trail refused succeeded")
	}
	if after := projectRows(t, f, d.Project.ID); !maps.Equal(before, after) {
		t.Fatalf("an unrecorded deletion changed rows: %v, then %v", before, after)
	}
	requireLogs(t, f, d.attempts, true)
}
