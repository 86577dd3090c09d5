package pgstore

import (
	"maps"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
)

// setProjectStatus saves the named project with status, as an apply
// changing its status: does.
func (s *store) setProjectStatus(t *testing.T, name string, status project.Status) {
	t.Helper()
	p, err := s.admin.ProjectByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	p.Status = status
	if _, err := s.admin.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// A worker's pull is granted no Run of an archived project: neither one
// queued before the archive nor the retry of one that was running then
// and failed after it; another project's Run is granted, and both of the
// archived project's once it is active again.
func TestAPullGrantsNoQueuedRunOrRetryOfAnArchivedProject(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	alphaID, alpha := s.admitRuns(t, "alpha", 2)
	s.setCommand(t, alphaID, storedRetry(2, 0, "failed"))
	w := s.newWorker(t, "w1", nil, 4)
	l, g := s.started(t, w)
	s.setProjectStatus(t, "alpha", project.Archived)
	if res, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1)); err != nil || res.RunState != string(run.RetryWait) {
		t.Fatalf("the running Run failed: %+v, %v; want it waiting to retry", res, err)
	}
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Requeued != 1 {
		t.Fatalf("sweep after the backoff: %+v, %v; want the retry queued", res, err)
	}
	_, beta := s.admitRuns(t, "beta", 1)
	if got := grantedSet(t, s, w, 4); !slices.Equal(got, []string{beta["t000"]}) {
		t.Fatalf("with alpha archived a pull was granted %v; want only beta's Run %s, not alpha's queued Run nor the retry of %s", got, beta["t000"], g.RunID)
	}
	s.setProjectStatus(t, "alpha", project.Active)
	if got, want := grantedSet(t, s, w, 4), slices.Sorted(maps.Values(alpha)); !slices.Equal(got, want) {
		t.Fatalf("with alpha active again a pull was granted %v; want alpha's queued Run and retry %v", got, want)
	}
}
