package pgstore

import (
	"maps"
	"testing"

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
// next pull says nothing more than queued.
func TestAQueuedRunALiveWorkerCanTakeHasNoWaitingReason(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	project, runs := s.admitRuns(t, "ready", 1)
	s.setCommand(t, project, map[string]any{"placement": map[string]any{"labels": map[string]string{"zone": "eu"}}})
	s.newWorker(t, "eu", map[string]string{"zone": "eu", "disk": "ssd"}, 2)
	if w := s.waitingOf(t, runs["t000"]); w != nil {
		t.Fatalf("waiting %+v, want none: the worker takes it at its next pull", w)
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
