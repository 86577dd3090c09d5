package sqlitestore

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// misplacedAttempts counts the attempts whose project is not their Run's.
func (e *env) misplacedAttempts(t *testing.T) (misplaced, all int) {
	t.Helper()
	if err := e.raw.QueryRow(`SELECT count(*) FILTER (WHERE a.project_id IS NOT r.project_id), count(*)
		FROM attempts a JOIN runs r ON r.id = a.run_id`).Scan(&misplaced, &all); err != nil {
		t.Fatal(err)
	}
	return misplaced, all
}

// Every way an attempt is written names its Run's project (migration
// 0048), which the dispatcher's queue passes over a capped project by: an
// admission, a page of admissions, a run now, a rerun, a backfill and a
// retry's next attempt; every statement that writes attempts is read for
// the column (no insert trigger checks it: its look-up cost each
// admission about a twelfth of its CPU), and an attempt is never moved to
// another project or Run.
func TestEveryAttemptCarriesItsRunsProject(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	files, err := queryFS.ReadDir("queries")
	if err != nil {
		t.Fatal(err)
	}
	inserts := 0
	for _, f := range files {
		q := query(strings.TrimSuffix(f.Name(), ".sql"))
		_, columns, found := strings.Cut(q, "INSERT INTO attempts (")
		if !found {
			continue
		}
		inserts++
		if columns, _, _ = strings.Cut(columns, ")"); !strings.Contains(columns, "project_id") {
			t.Errorf("%s writes attempts without their project_id", f.Name())
		}
	}
	if inserts != 4 {
		t.Fatalf("%d statements write attempts; want the admission's, the backfill's, the page's and the retry's", inserts)
	}
	e := newEnv(t)
	rs, err := e.store.ScheduleCommitPage(ctx, e.duePage(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rs {
		if res.Outcome != schedule.Admitted {
			t.Fatalf("page: %+v, want every row admitted", res)
		}
	}
	d := e.defs(t, "alone", everyMinute)
	admitted := e.admit(t, d.Trigger.TriggerID)
	e.runNow(t, d.Trigger.TriggerID, "now")
	if _, err := e.finish(ctx, admitted, run.AttemptSucceeded); err != nil {
		t.Fatal(err)
	}
	if res, err := e.store.RunRerun(ctx, schedule.RerunRequest{RunID: admitted, RequestID: "again", Actor: "ops"}); err != nil || res.RunID == "" {
		t.Fatalf("rerun: %+v, %v", res, err)
	}
	e.backfillBacklog(t, "backfilled")
	retried := e.admit(t, e.retryingTrigger(t, "retried").TriggerID)
	if _, err := e.finish(ctx, retried, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	// 3 of the page, 3 of alone, 60 backfilled, 2 of the retried Run.
	if misplaced, all := e.misplacedAttempts(t); misplaced != 0 || all != 68 {
		t.Fatalf("%d of %d attempts name another project than their Run's; want 0 of 68", misplaced, all)
	}
	other := e.defs(t, "other", everyMinute)
	if err := e.tamper(ctx, `UPDATE attempts SET project_id = ? WHERE run_id = ?`, other.Project.ID, admitted); err == nil {
		t.Fatal("an attempt was moved to another project")
	}
}

// A file an older build wrote, with Runs queued in a project at its cap
// and in another, gives every attempt its Run's project as it is migrated,
// and the dispatcher's queue then passes over the capped project's Runs to
// the other's, in their order.
func TestMigratingGivesEveryAttemptItsRunsProject(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0048-attempts-project")
	unproject := attemptsProjectLater(t, e)
	capped := e.capped(t, "team", 1, 3)
	if started := e.dispatchRound(t, 1); !slices.Equal(started, capped[:1]) {
		t.Fatalf("started %v, want %v", started, capped[:1])
	}
	d := e.defs(t, "other", everyMinute)
	others := []string{e.runNow(t, d.Trigger.TriggerID, "a"), e.runNow(t, d.Trigger.TriggerID, "b")}
	unproject()
	if _, err := e.store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if misplaced, all := e.misplacedAttempts(t); misplaced != 0 || all != 5 {
		t.Fatalf("after the migration %d of %d attempts name another project than their Run's; want 0 of 5", misplaced, all)
	}
	if got := e.pendingOrder(t, 16); !slices.Equal(got, others) {
		t.Fatalf("after the migration the dispatcher's queue is %v; want the uncapped project's %v", got, others)
	}
}

// A round's read of the dispatcher's queue, while a project is at its
// cap, goes project by project, passing over the capped ones, and reads
// each other project's pending attempts along attempts_pending_project:
// it never walks attempts_pending, where a capped project's backlog lies
// between the Runs it could start. With no project at its cap it walks
// attempts_pending in the queue's order, as before. The plan holds
// without statistics, as on a fresh device, and after ANALYZE of a file
// with a capped backlog.
func TestARoundPassesOverACappedProjectsBacklogWithoutReadingIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	check := func(when string) {
		t.Helper()
		plan := strings.Join(e.queryPlan(t, qAttemptsPending, 16), "\n")
		uncapped, besideCap, ok := strings.Cut(plan, "UNION ALL")
		scan := strings.Index(besideCap, "\nSCAN pr\n")
		search := strings.Index(besideCap, "\nSEARCH a USING INDEX attempts_pending_project (project_id=?)\n")
		if !ok || scan < 0 || search < scan || strings.Contains(besideCap, "SCAN a USING") ||
			!strings.Contains(besideCap, "LIST SUBQUERY") || !strings.Contains(uncapped, "\nSCAN a USING INDEX attempts_pending\n") {
			t.Fatalf("%s: the queue beside a cap does not read each project's attempts along attempts_pending_project:\n%s", when, plan)
		}
	}
	check("without statistics")
	capped := e.capped(t, "team", 1, 2)
	if started := e.dispatchRound(t, 1); !slices.Equal(started, capped[:1]) {
		t.Fatalf("started %v, want %v", started, capped[:1])
	}
	var template string
	if err := e.raw.QueryRow(`SELECT run_id FROM attempts WHERE run_id = ?`, capped[1]).Scan(&template); err != nil {
		t.Fatal(err)
	}
	e.seedRuns(t, template, 2_000, queuedRuns)
	if err := e.tamper(t.Context(), `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	check("after ANALYZE")
}

// Beside a project at its cap the dispatcher's queue, read project by
// project, hands over the same Runs in the same order as the walk of the
// whole queue does with no project at its cap: a cancel_previous
// replacement in the place of the Run it replaced, ahead of a Run admitted
// between the two, other projects' Runs oldest first, a backfill's last,
// and none of the capped project's.
func TestBesideACappedProjectTheQueueKeepsItsOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	team := e.capped(t, "team", 1, 3)
	if started := e.dispatchRound(t, 1); !slices.Equal(started, team[:1]) {
		t.Fatalf("started %v, want %v", started, team[:1])
	}
	history := e.backfillBacklog(t, "history")
	replacing := storetest.QuietCron(e.clock.NowMs())
	replacing.Overlap = trigger.OverlapCancelPrevious
	replace := e.defs(t, "replace", replacing).Trigger.TriggerID
	plain := e.defs(t, "plain", storetest.QuietCron(e.clock.NowMs())).Trigger.TriggerID
	e.runNow(t, replace, "first")
	between := e.runNow(t, plain, "a")
	replacement := e.runNow(t, replace, "second")
	last := e.runNow(t, plain, "b")
	e.capped(t, "late", 0, 1)
	besideCap := e.pendingOrder(t, 100)
	if len(besideCap) != 64 || besideCap[0] != replacement || besideCap[1] != between || besideCap[2] != last || !slices.Equal(besideCap[4:], history) {
		t.Fatalf("beside team at its cap the queue is %v;\nwant the replacement, the Run between, the last, late's Run, then the backfill %v", besideCap, history)
	}
	p, err := e.store.ProjectByName(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	p.MaxRunning, p.Status = 0, project.Archived
	if _, err := e.store.ProjectSave(ctx, p); err != nil {
		t.Fatal(err)
	}
	if walked := e.pendingOrder(t, 100); !slices.Equal(walked, besideCap) {
		t.Fatalf("with no project at its cap the walk of the queue is %v;\nbeside the cap it was %v", walked, besideCap)
	}
}
