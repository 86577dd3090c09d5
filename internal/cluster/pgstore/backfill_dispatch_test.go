package pgstore

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// everyMinuteTrigger is a trigger of a fresh project firing every minute.
const everyMinuteTrigger = `{name: tick, task: job, cron: "* * * * *", timezone: UTC}`

// backfillBacklog applies an every-minute trigger in a fresh project,
// backfills the hour that ended an hour ago (60 Runs, older than any Run
// admitted after) and pauses the trigger, returning the backfilled Run
// ids oldest first.
func (s *store) backfillBacklog(t *testing.T, project string) []string {
	t.Helper()
	triggerID := s.applyTrigger(t, project, everyMinuteTrigger, "tick")
	now := time.Now().UnixMilli()
	res, err := s.runtime.TriggerBackfill(t.Context(), schedule.BackfillRequest{
		TriggerID: triggerID, FromMs: now - 2*time.Hour.Milliseconds(), ToMs: now - time.Hour.Milliseconds() - 1, Actor: "ops"})
	if err != nil || res.Admitted != 60 {
		t.Fatalf("backfill %+v, %v; want 60 Runs", res, err)
	}
	// Paused, the trigger admits nothing of its own once a minute
	// boundary passes during the test, so a round the test makes admits
	// only what the test asks it to; its queued backfill is still
	// dispatched (a pause holds back occurrences, not queued Runs).
	if _, err := s.admin.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: triggerID, Pause: true, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	return res.RunIDs
}

// grantedSet is the sorted ids of the Runs a pull granted.
func grantedSet(t *testing.T, s *store, w worker, maxGrants int) []string {
	t.Helper()
	_, grants := s.pull(t, w, maxGrants)
	return slices.Sorted(maps.Keys(runIDs(grants)))
}

// A backlog of backfilled Runs queued before a clock Run, a run-now and a
// re-run does not hold them back: a worker's pull is granted those three
// first, and the backfill's oldest Runs next.
func TestAPullGrantsTheClockRunNowAndRerunBeforeAnEarlierBackfillBacklog(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	manualID := s.applyTrigger(t, "manual", `{name: tick, task: job, cron: "0 0 1 1 *", timezone: UTC}`, "tick")
	finished, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: manualID, RequestID: "finished"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.runtime.CancelRun(t.Context(), finished.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	backlog := s.backfillBacklog(t, "history")
	_, clock := s.admitRuns(t, "clock", 1)
	now, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: manualID, RequestID: "now"})
	if err != nil || !now.Created {
		t.Fatalf("run now: %+v, %v", now, err)
	}
	rerun, err := s.runtime.RunRerun(t.Context(), schedule.RerunRequest{RunID: finished.RunID, RequestID: "again"})
	if err != nil || !rerun.Created {
		t.Fatalf("re-run: %+v, %v", rerun, err)
	}
	w := s.newWorker(t, "w1", nil, 8)
	want := slices.Sorted(slices.Values([]string{clock["t000"], now.RunID, rerun.RunID}))
	if got := grantedSet(t, s, w, 3); !slices.Equal(got, want) {
		t.Fatalf("a pull of 3 was granted %v,\nwant the clock's Run, the run-now and the re-run before the backfill: %v", got, want)
	}
	if got, want := grantedSet(t, s, w, 2), backlog[:2]; !slices.Equal(got, want) {
		t.Fatalf("the next pull was granted %v, want the backfill's two oldest Runs %v", got, want)
	}
}

// The slots the other Runs leave free go to the backfill, oldest first: a
// backlog drains behind them at full speed, and alone it fills a pull.
func TestAPullFillsTheSlotsTheOtherRunsLeaveWithTheBackfill(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	backlog := s.backfillBacklog(t, "history")
	w := s.newWorker(t, "w1", nil, 8)
	if got, want := grantedSet(t, s, w, 4), backlog[:4]; !slices.Equal(got, want) {
		t.Fatalf("with only the backfill queued a pull of 4 was granted %v, want its 4 oldest Runs %v", got, want)
	}
	_, clock := s.admitRuns(t, "clock", 1)
	want := slices.Sorted(slices.Values(append([]string{clock["t000"]}, backlog[4:7]...)))
	if got := grantedSet(t, s, w, 4); !slices.Equal(got, want) {
		t.Fatalf("with a clock Run queued a pull of 4 was granted %v,\nwant the clock's Run and the backfill's next 3 oldest %v", got, want)
	}
}

// A database an older build wrote, with a backfill's Runs queued before a
// clock Run, keeps them behind it once migrated: pg-0039 marks every
// unfinished Run a backfill made.
func TestMigratingPutsTheBackfilledRunsAlreadyQueuedBehindTheOthers(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	backlog := s.backfillBacklog(t, "history")
	_, clock := s.admitRuns(t, "clock", 1)
	at := slices.IndexFunc(Stream(), func(m Migration) bool { return strings.HasSuffix(m.ID, "-backfill-dispatched-last") })
	if at < 0 {
		t.Fatal("the stream has no backfill-dispatched-last migration")
	}
	m := Stream()[at]
	// The older build's schema: no mark, the index in admission order, the
	// migration not applied.
	s.exec(t, `DROP INDEX qinglong.runs_queued_revision_idx`)
	s.exec(t, `ALTER TABLE qinglong.runs DROP COLUMN backfilled`)
	s.exec(t, `CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, id) WHERE state = 'queued'`)
	s.exec(t, `DELETE FROM qinglong.schema_migrations WHERE seq = $1`, m.Seq)
	s.exec(t, `UPDATE qinglong.schema_capability SET version = $1 WHERE component = $2`, m.Seq-1, capabilityComponent)
	conn, err := s.super.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = applyMigration(ctx, conn.Conn(), m)
	conn.Release()
	if err != nil {
		t.Fatal(err)
	}
	w := s.newWorker(t, "w1", nil, 8)
	if got := grantedSet(t, s, w, 1); !slices.Equal(got, []string{clock["t000"]}) {
		t.Fatalf("after the migration a pull of 1 was granted %v, want the clock's Run %s", got, clock["t000"])
	}
	if got, want := grantedSet(t, s, w, 2), backlog[:2]; !slices.Equal(got, want) {
		t.Fatalf("the next pull was granted %v, want the backfill's two oldest Runs %v", got, want)
	}
}
