package pgstore

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/run"
)

// sweepNoting runs one lease sweep and returns how many queued Runs it
// noted as waiting for a worker.
func (s *store) sweepNoting(t *testing.T) int {
	t.Helper()
	res, err := s.runtime.SweepLeases(t.Context(), 128)
	if err != nil {
		t.Fatal(err)
	}
	return res.NotedWaiting
}

// queuedAgo moves the queued Runs' queued time (and their admission, which
// it may not precede) back by d in database time, as if they had waited
// that long: the sweep notes only Runs queued for WaitingNoteGrace.
func (s *store) queuedAgo(t *testing.T, d time.Duration) {
	t.Helper()
	s.exec(t, `UPDATE qinglong.runs SET created_at_ms = created_at_ms - $1, queued_at_ms = queued_at_ms - $1
		WHERE state = 'queued' AND waiting_noted_at_ms IS NULL`, d.Milliseconds())
}

// waitingNotes reads Run id as `ql runs show` does and returns the
// payloads of its run.waiting events, and the names of all its events.
func (s *store) waitingNotes(t *testing.T, id string) ([]run.WaitingNote, []string) {
	t.Helper()
	d, err := s.runtime.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var notes []run.WaitingNote
	var names []string
	for _, e := range d.Events {
		names = append(names, e.Name)
		if e.Name != run.EventWaiting {
			continue
		}
		var n run.WaitingNote
		if err := json.Unmarshal([]byte(e.Payload), &n); err != nil {
			t.Fatalf("run.waiting payload %s: %v", e.Payload, err)
		}
		notes = append(notes, n)
	}
	return notes, names
}

// A queued Run whose placement no live worker carries gets one run.waiting
// event naming the reason and the labels it needs, at the first sweep and
// never again at later ones.
func TestAQueuedRunNoWorkerCarriesTheLabelsOfSaysOnceWhichLabelsItNeeds(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	project, runs := s.admitRuns(t, "gpu", 1)
	s.queuedAgo(t, WaitingNoteGrace)
	want := map[string]string{"gpu": "a100"}
	s.setCommand(t, project, map[string]any{"placement": map[string]any{"labels": want}})
	s.newWorker(t, "cpu", map[string]string{"zone": "eu"}, 4)
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the first sweep noted %d Runs, want the 1 no worker carries the labels of", n)
	}
	for range 2 {
		if n := s.sweepNoting(t); n != 0 {
			t.Fatalf("a later sweep noted %d Runs again, want 0", n)
		}
	}
	notes, names := s.waitingNotes(t, runs["t000"])
	if len(notes) != 1 || notes[0].Reason != run.WaitNoMatchingWorker || !maps.Equal(notes[0].Labels, want) || notes[0].Workers != 1 {
		t.Fatalf("run.waiting notes %+v (events %v), want one %s needing %v among 1 worker", notes, names, run.WaitNoMatchingWorker, want)
	}
}

// A queued Run while no worker is connected at all is noted no_worker,
// needing no labels.
func TestAQueuedRunWithNoWorkerConnectedIsNotedNoWorker(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "alone", 1)
	s.queuedAgo(t, WaitingNoteGrace)
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the sweep noted %d Runs, want 1", n)
	}
	notes, names := s.waitingNotes(t, runs["t000"])
	if len(notes) != 1 || notes[0].Reason != run.WaitNoWorker || len(notes[0].Labels) != 0 || notes[0].Workers != 0 {
		t.Fatalf("run.waiting notes %+v (events %v), want one %s", notes, names, run.WaitNoWorker)
	}
}

// A queued Run a live matching worker could take, even one whose every
// slot is busy, is not noted: it waits for a slot, not for a worker.
func TestAQueuedRunAMatchingWorkerCouldTakeIsNotNoted(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "busy", 2)
	s.queuedAgo(t, WaitingNoteGrace)
	w1 := s.newWorker(t, "w1", nil, 1)
	_, grants := s.pull(t, w1, 1)
	if len(grants) != 1 {
		t.Fatalf("granted %d, want 1", len(grants))
	}
	if n := s.sweepNoting(t); n != 0 {
		t.Fatalf("the sweep noted %d Runs, want none while a matching worker is live", n)
	}
	for _, id := range runs {
		if notes, names := s.waitingNotes(t, id); len(notes) != 0 {
			t.Fatalf("Run %s has run.waiting notes %+v (events %v), want none", id, notes, names)
		}
	}
}

// A noted Run that a worker with its labels then takes is granted as any
// queued Run: its history is the note, then the grant, and no further
// note follows.
func TestANotedRunIsTakenByAMatchingWorkerAsAnyQueuedRun(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	project, runs := s.admitRuns(t, "gpu", 1)
	s.queuedAgo(t, WaitingNoteGrace)
	s.setCommand(t, project, map[string]any{"placement": map[string]any{"labels": map[string]string{"gpu": "a100"}}})
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the sweep noted %d Runs, want 1", n)
	}
	gpu := s.newWorker(t, "gpu", map[string]string{"gpu": "a100"}, 1)
	_, grants := s.pull(t, gpu, 1)
	if len(grants) != 1 || grants[0].RunID != runs["t000"] {
		t.Fatalf("the gpu worker was granted %+v, want the noted Run", grants)
	}
	if n := s.sweepNoting(t); n != 0 {
		t.Fatalf("a sweep after the grant noted %d Runs, want 0", n)
	}
	notes, names := s.waitingNotes(t, runs["t000"])
	want := []string{run.EventCreated, run.EventQueued, run.EventWaiting, run.EventDispatching}
	if len(notes) != 1 || !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
}

// A round of noting reads the queued Runs not noted yet that have waited
// the grace, never the ones it noted before nor those queued within the
// grace: beside 5,000 noted Runs that still wait and 5,000 queued a moment
// ago, it reads the one Run that has waited the grace and notes it.
func TestNotingWaitingRunsNeverWalksTheRunsNotedBeforeOrQueuedWithinTheGrace(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "gpu", 1)
	s.copyRun(t, "noted", "queued", 5000)
	// The noted Runs have waited an hour: older than the grace, as the one
	// Run to note is, so neither its queued time nor its revision sets
	// them apart in a read that does not skip the noted Runs.
	s.exec(t, `UPDATE qinglong.runs SET waiting_noted_at_ms = 1, created_at_ms = created_at_ms - 3600000,
		queued_at_ms = queued_at_ms - 3600000 WHERE idempotency_key LIKE 'noted-%'`)
	s.queuedAgo(t, WaitingNoteGrace)
	// Copies of that Run queued at its admission, before it was moved back.
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'recent-' || g, scheduled_for_ms, 'queued', 2, 2, queued_at_ms + $2, queued_at_ms + $2, updated_at_ms
		FROM qinglong.runs, generate_series(1, 5000) g WHERE id = $1`, runs["t000"], WaitingNoteGrace.Milliseconds())
	s.exec(t, `ANALYZE`)
	args, err := sweepNoteWaitingParams.args(pgx.StrictNamedArgs{"limit": 128, "revisions": MaxSweepPage,
		"grace_ms": WaitingNoteGrace.Milliseconds(), "event": run.EventWaiting})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	top, plan := explainPlan(t, tx, "noting", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlSweepNoteWaiting, args...)
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	reads := 0
	top.walk(func(n planNode) {
		if n.Relation == "runs" {
			reads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	t.Logf("runs rows read beside 5,000 noted Runs and 5,000 queued within the grace: %d", reads)
	if budget := 8; reads > budget {
		t.Fatalf("noting read %d runs rows (budget %d) beside 5,000 noted Runs and 5,000 queued within the grace; plan:\n%s",
			reads, budget, plan)
	}
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the sweep noted %d Runs, want the 1 that has waited the grace", n)
	}
	if notes, names := s.waitingNotes(t, runs["t000"]); len(notes) != 1 {
		t.Fatalf("the new Run's notes %+v (events %v), want 1", notes, names)
	}
}

// Two replicas sweeping at once note each waiting Run once between them:
// a Run one holds is skipped by the other, and one noted is no longer a
// candidate when the other locks it.
func TestTwoReplicasSweepingAtOnceNoteEachRunOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const n = 40
	_, runs := s.admitRuns(t, "crowd", n)
	s.queuedAgo(t, WaitingNoteGrace)
	other := s.openRuntime(t, "replica-b", testLease)
	var wg sync.WaitGroup
	noted := make([]int, 2)
	errs := make([]error, 2)
	for i, rt := range []*Runtime{s.runtime, other} {
		wg.Go(func() {
			for range 3 {
				res, err := rt.SweepLeases(t.Context(), 16)
				noted[i] += res.NotedWaiting
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("sweeps: %v, %v", errs[0], errs[1])
	}
	t.Logf("replica-a noted %d Runs, replica-b %d", noted[0], noted[1])
	if noted[0]+noted[1] != n {
		t.Fatalf("the two replicas noted %d and %d Runs, want %d between them", noted[0], noted[1], n)
	}
	for name, id := range runs {
		if notes, events := s.waitingNotes(t, id); len(notes) != 1 {
			t.Fatalf("Run %s has %d run.waiting events (%v), want 1", name, len(notes), events)
		}
	}
}

// A Run another transaction holds (a pull granting it) is skipped, not
// waited for: the sweep notes the others at once, and that Run at a later
// round once it is free and still queued.
func TestNotingSkipsARunAnotherTransactionHolds(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "held", 2)
	s.queuedAgo(t, WaitingNoteGrace)
	tx, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(t.Context(), `SELECT 1 FROM qinglong.runs WHERE id = $1 FOR NO KEY UPDATE`, runs["t000"]); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := s.runtime.SweepLeases(ctx, 128)
	if err != nil || res.NotedWaiting != 1 {
		t.Fatalf("the sweep beside a held Run noted %d, %v; want the 1 free Run, at once", res.NotedWaiting, err)
	}
	if notes, events := s.waitingNotes(t, runs["t000"]); len(notes) != 0 {
		t.Fatalf("the held Run was noted %+v (events %v) while held", notes, events)
	}
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the sweep after the hold ended noted %d, want the 1 held Run", n)
	}
	for name, id := range runs {
		if notes, events := s.waitingNotes(t, id); len(notes) != 1 {
			t.Fatalf("Run %s has %d run.waiting events (%v), want 1", name, len(notes), events)
		}
	}
}

// A Run admitted while no worker can take it, as in the seconds a worker
// restarts, is not noted until it has been queued for WaitingNoteGrace in
// database time: a worker back within the grace takes it with nothing in
// its history saying no worker could; one that has waited the grace is
// noted at the next sweep.
func TestARunIsNotedAsWaitingOnlyOnceItHasBeenQueuedForTheGrace(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "restart", 1)
	if n := s.sweepNoting(t); n != 0 {
		t.Fatalf("a sweep just after the admission noted %d Runs, want none within the grace", n)
	}
	s.queuedAgo(t, WaitingNoteGrace/2)
	if n := s.sweepNoting(t); n != 0 {
		t.Fatalf("a sweep half the grace after the admission noted %d Runs, want none", n)
	}
	if notes, names := s.waitingNotes(t, runs["t000"]); len(notes) != 0 {
		t.Fatalf("the Run within the grace has run.waiting notes %+v (events %v), want none", notes, names)
	}
	s.queuedAgo(t, WaitingNoteGrace/2)
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the sweep once the Run had waited the grace noted %d Runs, want 1", n)
	}
	notes, names := s.waitingNotes(t, runs["t000"])
	if len(notes) != 1 || notes[0].Reason != run.WaitNoWorker {
		t.Fatalf("run.waiting notes %+v (events %v), want one %s", notes, names, run.WaitNoWorker)
	}
}
