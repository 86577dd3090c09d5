package pgstore

import (
	"maps"
	"testing"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
)

// waitingOf reads Run id as `ql runs show` does and returns why it waits.
func (s *store) waitingOf(t *testing.T, id string) *run.Waiting {
	t.Helper()
	d, err := s.runtime.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Waiting
}

// A queued Run read while no worker process is connected says that no
// worker is connected, whatever its placement.
func TestAQueuedRunReadWithNoWorkerConnectedSaysNoWorkerIsConnected(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "alone", 1)
	w := s.waitingOf(t, runs["t000"])
	if w == nil || w.Reason != run.WaitNoWorker {
		t.Fatalf("waiting %+v, want %s", w, run.WaitNoWorker)
	}
	// A worker whose session ended or expired is not connected either.
	gone := s.newWorker(t, "gone", nil, 4)
	s.exec(t, `UPDATE qinglong.worker_sessions SET lease_expires_at_ms = heartbeat_at_ms + 1 WHERE id = $1`, gone.session)
	if w := s.waitingOf(t, runs["t000"]); w == nil || w.Reason != run.WaitNoWorker {
		t.Fatalf("with only an expired session: waiting %+v, want %s", w, run.WaitNoWorker)
	}
}

// A queued Run whose placement no live worker satisfies names the labels
// it requires, how many workers are live, and their label sets, closest
// first.
func TestAQueuedRunNoLiveWorkerCarriesThePlacementOfNamesTheLabelsRequired(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	project, runs := s.admitRuns(t, "gpu", 1)
	want := map[string]string{"gpu": "a100", "zone": "eu"}
	s.setCommand(t, project, map[string]any{"placement": map[string]any{"labels": want}})
	s.newWorker(t, "us", map[string]string{"zone": "us"}, 4)
	s.newWorker(t, "eu", map[string]string{"zone": "eu"}, 4)
	w := s.waitingOf(t, runs["t000"])
	if w == nil || w.Reason != run.WaitNoMatchingWorker || !maps.Equal(w.Labels, want) || w.Workers != 2 {
		t.Fatalf("waiting %+v, want %s for %v among 2 workers", w, run.WaitNoMatchingWorker, want)
	}
	if len(w.WorkerLabels) != 2 || !maps.Equal(w.WorkerLabels[0], map[string]string{"zone": "eu"}) || !maps.Equal(w.WorkerLabels[1], map[string]string{"zone": "us"}) {
		t.Fatalf("worker label sets %v, want zone=eu (one label of the placement) before zone=us", w.WorkerLabels)
	}
}

// A queued Run whose matching workers hold a Run in every slot waits for a
// free slot, and says on how many of them.
func TestAQueuedRunWhoseMatchingWorkersAreAllBusyWaitsForAFreeSlot(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "busy", 2)
	w1 := s.newWorker(t, "w1", nil, 1)
	_, grants := s.pull(t, w1, 1)
	if len(grants) != 1 {
		t.Fatalf("granted %d, want 1", len(grants))
	}
	queued := runs["t000"]
	if grants[0].RunID == queued {
		queued = runs["t001"]
	}
	w := s.waitingOf(t, queued)
	if w == nil || w.Reason != run.WaitWorkersBusy || w.Workers != 1 {
		t.Fatalf("waiting %+v, want %s on 1 worker", w, run.WaitWorkersBusy)
	}
	if d := s.waitingOf(t, grants[0].RunID); d != nil {
		t.Fatalf("the granted Run waits %+v, want nothing", d)
	}
}

// A queued Run that a live, matching worker with a free slot takes at its
// next pull says nothing more than queued: a busy matching worker makes it
// wait, and a second one with a free slot takes the notice away.
func TestAQueuedRunALiveWorkerCanTakeHasNoWaitingReason(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	project, runs := s.admitRuns(t, "ready", 2)
	s.setCommand(t, project, map[string]any{"placement": map[string]any{"labels": map[string]string{"zone": "eu"}}})
	full := s.newWorker(t, "full", map[string]string{"zone": "eu"}, 1)
	_, grants := s.pull(t, full, 1)
	if len(grants) != 1 {
		t.Fatalf("granted %d, want 1", len(grants))
	}
	queued := runs["t000"]
	if grants[0].RunID == queued {
		queued = runs["t001"]
	}
	if w := s.waitingOf(t, queued); w == nil || w.Reason != run.WaitWorkersBusy {
		t.Fatalf("with its only matching worker full: waiting %+v, want %s", w, run.WaitWorkersBusy)
	}
	s.newWorker(t, "eu", map[string]string{"zone": "eu", "disk": "ssd"}, 2)
	if w := s.waitingOf(t, queued); w != nil {
		t.Fatalf("waiting %+v, want none: the worker with a free slot takes it at its next pull", w)
	}
}

// A queued Run while every connected worker is draining says they drain
// and take no new Run.
func TestAQueuedRunWhileEveryWorkerDrainsSaysTheyAreDraining(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "drained", 1)
	s.newWorker(t, "w1", nil, 2)
	if err := s.admin.WorkerDrain(t.Context(), "w1"); err != nil {
		t.Fatal(err)
	}
	if w := s.waitingOf(t, runs["t000"]); w == nil || w.Reason != run.WaitWorkersDraining || w.Workers != 1 {
		t.Fatalf("waiting %+v, want %s of 1 worker", w, run.WaitWorkersDraining)
	}
}

// The unplaceable count is every queued Run while no worker takes work,
// then only the Runs whose placement no live worker carries, never a Run a
// matching worker could take once it has a free slot, and at most the
// limit.
func TestTheUnplaceableCountIsTheQueuedRunsNoLiveWorkerCarriesThePlacementOf(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	gpuProject, _ := s.admitRuns(t, "gpu", 2)
	s.setCommand(t, gpuProject, map[string]any{"placement": map[string]any{"labels": map[string]string{"gpu": "a100"}}})
	s.admitRuns(t, "plain", 3)
	count := func(limit int) int {
		t.Helper()
		n, err := s.runtime.UnplaceableRuns(t.Context(), limit)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(100); n != 5 {
		t.Fatalf("with no worker: %d unplaceable, want all 5 queued", n)
	}
	if n := count(3); n != 3 {
		t.Fatalf("cut at 3: %d", n)
	}
	s.newWorker(t, "cpu", map[string]string{"zone": "eu"}, 8)
	if n := count(100); n != 2 {
		t.Fatalf("with a worker without gpu: %d unplaceable, want the 2 gpu Runs", n)
	}
	gpu := s.newWorker(t, "gpu", map[string]string{"gpu": "a100"}, 1)
	if _, grants := s.pull(t, gpu, 1); len(grants) != 1 {
		t.Fatalf("the gpu worker was granted %d, want 1", len(grants))
	}
	if n := count(100); n != 0 {
		t.Fatalf("with a busy gpu worker: %d unplaceable, want 0 (the Run waits for its slot)", n)
	}
}

// The unplaceable count reads a bounded number of runs rows whatever the
// queue holds: 5,000 queued Runs no worker can take are counted up to the
// limit, not walked.
func TestTheUnplaceableCountNeverWalksTheQueue(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "gpu", 1)
	s.copyRun(t, "backlog", "queued", 5000)
	s.exec(t, `ANALYZE`)
	const limit = 100
	top, plan := explainPlan(t, s.super, "unplaceable", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlMonitorUnplaceable, limit)
	reads := 0
	top.walk(func(n planNode) {
		if n.Relation == "runs" {
			reads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	if n, err := s.runtime.UnplaceableRuns(t.Context(), limit); err != nil || n != limit {
		t.Fatalf("counted %d, %v; want the limit %d", n, err, limit)
	}
	t.Logf("counted up to %d of 5,001 queued Runs: %d runs rows read", limit, reads)
	if budget := 2*limit + 8; reads > budget {
		t.Fatalf("the count read %d runs rows (budget %d) with 5,001 queued; plan:\n%s", reads, budget, plan)
	}
}

// A queued Run its trigger's queue_one policy holds behind an unfinished
// earlier Run, while a worker with a free slot is live, says it waits for
// that Run, naming the policy; once that Run has ended it says nothing
// more.
func TestAQueuedRunHeldBehindAnEarlierRunOfItsTriggerSaysWhichRun(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.newWorker(t, "w1", nil, 4)
	first, second := s.queueOneBehind(t, w)
	if w := s.waitingOf(t, second.RunID); w == nil || w.Reason != run.WaitPrevious || w.PreviousRun != first.RunID || w.Overlap != "queue_one" {
		t.Fatalf("waiting %+v, want %s behind %s by queue_one", w, run.WaitPrevious, first.RunID)
	}
	if w := s.waitingOf(t, first.RunID); w != nil {
		t.Fatalf("the first Run waits %+v, want nothing: it runs", w)
	}
	s.endCancelled(t, w, first)
	if w := s.waitingOf(t, second.RunID); w != nil {
		t.Fatalf("after the first Run ended the second waits %+v, want nothing", w)
	}
}

// copyRun adds n copies of the one Run in the database (foreign keys and
// all), each with its own idempotency key (prefix-i) and in state: a
// backlog a plan test measures against.
func (s *store) copyRun(t *testing.T, prefix, state string, n int) {
	t.Helper()
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			$1 || '-' || g, scheduled_for_ms, $2, 2, 2, created_at_ms, queued_at_ms, updated_at_ms
		FROM qinglong.runs, generate_series(1, $3::int) g`, prefix, state, n)
}

// A queued Run of an archived project says its project is archived, before
// any worker's state (no worker is granted it whatever that is), and the
// worker's reason once the project is active again.
func TestAQueuedRunOfAnArchivedProjectSaysItsProjectIsArchived(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "gamma", 1)
	s.setProjectStatus(t, "gamma", project.Archived)
	if w := s.waitingOf(t, runs["t000"]); w == nil || w.Reason != run.WaitProjectArchived || w.Project != "gamma" {
		t.Fatalf("the archived project's Run waits %+v; want %s naming gamma", w, run.WaitProjectArchived)
	}
	s.setProjectStatus(t, "gamma", project.Active)
	if w := s.waitingOf(t, runs["t000"]); w == nil || w.Reason != run.WaitNoWorker {
		t.Fatalf("with gamma active again, its Run waits %+v; want %s", w, run.WaitNoWorker)
	}
}
