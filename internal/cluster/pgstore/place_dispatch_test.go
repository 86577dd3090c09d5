package pgstore

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestDispatchNeverWalksABacklogToGrantAReplacement queues 5,000 Runs of
// one task revision after a cancel_previous trigger's Run of it, then
// replaces that Run: the replacement takes its place, first in
// runs_queued_revision_idx, so a pull grants it without reading the
// backlog queued since.
func TestDispatchNeverWalksABacklogToGrantAReplacement(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	triggerID := s.applyTrigger(t, "replaced", `{name: tick, task: job, cron: "0 0 1 1 *", timezone: UTC, overlap: cancel_previous}`, "tick")
	first, err := s.runtime.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: triggerID, RequestID: "first"})
	if err != nil {
		t.Fatal(err)
	}
	// The backlog: Runs of the same task revision queued after the first;
	// no trigger's, so the replacement cancels none of them.
	s.queueBacklog(t, dispatchBacklog{of: first.RunID, ordered: true, triggerless: true})
	replacement, err := s.runtime.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: triggerID, RequestID: "replacement"})
	if err != nil || replacement.Finished.Cancelled != 1 {
		t.Fatalf("run now %+v, %v; want the first Run cancelled", replacement, err)
	}
	s.exec(t, `ANALYZE`)
	// Room for two pulls of 8: the control below pulls after the real one.
	w := s.newWorker(t, "cpu", nil, 16)
	s.pullSkipsTheBacklog(t, w, "beside 5,000 runs queued after the replaced one")
	_, grants := s.pull(t, w, 1)
	if got := runIDs(grants); len(got) != 1 || !got[replacement.RunID] {
		t.Fatalf("a pull of 1 was granted %v, want the replacement %s", slices.Collect(maps.Keys(got)), replacement.RunID)
	}
	s.pullWalksTheBacklogOnce(t, w, "with the index in (backfilled, id) order", `DROP INDEX qinglong.runs_queued_revision_idx`,
		`CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, backfilled, id) WHERE state = 'queued'`)
}

// A database an older build wrote, with cancel_previous replacements
// queued behind Runs admitted after the Runs they cancelled, grants each
// replacement from the cancelled Run's place once migrated, whether a
// later occurrence or a run now replaced it; a Run waiting under
// queue_one whose predecessor a person cancelled keeps its own place.
func TestMigratingGivesTheReplacementsAlreadyQueuedThePlaceOfTheRunsTheyCancelled(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	runNow := func(triggerID, request string) string {
		t.Helper()
		res, err := s.runtime.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: triggerID, RequestID: request})
		if err != nil || !res.Created {
			t.Fatalf("run %s now: %+v, %v", triggerID, res, err)
		}
		return res.RunID
	}
	// queue_one lets a Run wait only behind one that started: a worker
	// starts the first before anything else is queued, then a person
	// cancels it.
	w := s.newWorker(t, "w1", nil, 1)
	personCancelled, queued := s.queueOneBehind(t, w)
	s.endCancelled(t, w, personCancelled)
	waiting := queued.RunID
	clock := s.applyTrigger(t, "clock", `{name: tick, task: job, cron: "* * * * *", timezone: UTC, overlap: cancel_previous}`, "tick")
	s.admitDueOnce(t, clock)
	manual := s.applyTrigger(t, "manual", `{name: tick, task: job, cron: "0 0 1 1 *", timezone: UTC, overlap: cancel_previous}`, "tick")
	other := s.applyTrigger(t, "other", `{name: tick, task: job, cron: "0 0 1 1 *", timezone: UTC}`, "tick")
	runNow(manual, "first")
	after := runNow(other, "after")
	byOccurrence := s.admitDueOnce(t, clock)
	byRunNow := runNow(manual, "second")
	at := slices.IndexFunc(Stream(), func(m Migration) bool { return strings.HasSuffix(m.ID, "-cancel-previous-takes-place") })
	if at < 0 {
		t.Fatal("the stream has no cancel-previous-takes-place migration")
	}
	m := Stream()[at]
	// The older build's schema: no place, the index without it, the
	// migration not applied.
	s.exec(t, `DROP INDEX qinglong.runs_queued_revision_idx`)
	s.exec(t, `ALTER TABLE qinglong.runs DROP COLUMN place_of`)
	s.exec(t, `CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, backfilled, id) WHERE state = 'queued'`)
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
	want := []string{waiting, byOccurrence, byRunNow, after}
	if got := s.dispatchOrder(t, 5); !slices.Equal(got, want) {
		t.Fatalf("after the migration pulls of one were granted %v,\nwant each replacement in its cancelled Run's place, the queue_one Run in its own: %v", got, want)
	}
}

// admitDueOnce admits the trigger's occurrence a second ago (admitDue)
// and returns its Run.
func (s *store) admitDueOnce(t *testing.T, triggerID string) string {
	t.Helper()
	s.admitDue(t, "trigger_id", triggerID, 1)
	var runID string
	if err := s.super.QueryRow(t.Context(), `SELECT id FROM qinglong.runs WHERE trigger_id = $1 ORDER BY id DESC LIMIT 1`, triggerID).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	return runID
}
