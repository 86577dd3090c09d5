package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Under queue_one the Run admitted behind an unfinished one is granted to
// no worker until the earlier Run has finished, however many slots are
// free.
func TestAQueuedOneRunIsNotGrantedWhileTheEarlierRunIsUnfinished(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.newWorker(t, "w1", nil, 4)
	first, second := s.queueOneBehind(t, w)
	if _, grants := s.pull(t, w, 4); len(grants) != 0 {
		t.Fatalf("granted %+v; want none, the second Run waiting behind the first", grants)
	}
	s.endCancelled(t, w, first)
	if _, grants := s.pull(t, w, 4); len(grants) != 1 || grants[0].RunID != second.RunID {
		t.Fatalf("granted %+v after the first Run ended; want the waiting one", grants)
	}
}

// Under cancel_previous the Run admitted behind a running one is granted to
// no worker until the Run it cancelled has stopped (its worker learns of
// the cancel only at its next renewal), for a clock admission and a run now
// alike, so two commands of the trigger never run at once meanwhile, as on
// a single node.
func TestACancelPreviousRunIsNotGrantedUntilTheRunItCancelledHasStopped(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	triggerID := s.applyTrigger(t, "c", "{name: tick, task: job, cron: \"0 0 1 1 *\", timezone: UTC, overlap: cancel_previous}", "tick")
	cfg := schedule.RoundConfig{PageSize: 4, GraceMs: testGraceMs, Parallel: 1, NewIDs: ids.Fill}
	if sum, err := schedule.Round(t.Context(), s.runtime, cfg); err != nil || sum.Counts[schedule.Initialized] != 1 {
		t.Fatalf("initialising round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	w := s.newWorker(t, "w1", nil, 4)
	stopped := func(l workerproto.Lease) {
		t.Helper()
		if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeStopped}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "one"})
	if err != nil {
		t.Fatal(err)
	}
	l1, g1 := s.started(t, w)
	if g1.RunID != first.RunID {
		t.Fatalf("granted %s; want the first Run", g1.RunID)
	}
	if err := s.makeDue(t.Context(), triggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	if sum, err := schedule.Round(t.Context(), s.runtime, cfg); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("admitting round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	if _, grants := s.pull(t, w, 4); len(grants) != 0 {
		t.Fatalf("granted %+v; want the clock's Run waiting while the one it cancelled still runs", grants)
	}
	stopped(l1)
	l2, g2 := s.started(t, w)
	if g2.RunID == first.RunID {
		t.Fatalf("granted the cancelled Run again")
	}
	third, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "three"})
	if err != nil || !third.Created {
		t.Fatalf("run now: %+v, %v; want a Run", third, err)
	}
	if _, grants := s.pull(t, w, 4); len(grants) != 0 {
		t.Fatalf("granted %+v; want the manual Run waiting while the one it cancelled still runs", grants)
	}
	stopped(l2)
	if _, grants := s.pull(t, w, 4); len(grants) != 1 || grants[0].RunID != third.RunID {
		t.Fatalf("granted %+v once the cancelled Run stopped; want the manual one", grants)
	}
}

// applyTrigger applies, as the admin role, project with one task "job"
// (echo hi, run by remote workers) and the trigger given as a YAML flow
// mapping, and returns the id of the trigger named name.
func (s *store) applyTrigger(t *testing.T, project, trigger, name string) string {
	t.Helper()
	doc, err := apply.Parse(project+".yaml", []byte("project: "+project+"\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n  - "+trigger+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: s.admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	if _, err := apply.Apply(t.Context(), svc, doc, ids.New); err != nil {
		t.Fatal(err)
	}
	var triggerID string
	if err := s.super.QueryRow(t.Context(), `SELECT t.id FROM qinglong.triggers t JOIN qinglong.projects p ON p.id = t.project_id WHERE p.name = $1 AND t.name = $2`, project, name).Scan(&triggerID); err != nil {
		t.Fatal(err)
	}
	return triggerID
}

// queueOneBehind applies a queue_one trigger, runs it now and starts that
// Run on w, then runs it now again: the first Run runs, so the second is
// admitted to wait behind it (beside a Run that never started it would be
// refused: one waits already).
func (s *store) queueOneBehind(t *testing.T, w worker) (first startedRun, second schedule.RunNowResult) {
	t.Helper()
	triggerID := s.applyTrigger(t, "q", "{name: tick, task: job, cron: \"0 0 1 1 *\", timezone: UTC, overlap: queue_one}", "tick")
	res, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "one"})
	if err != nil {
		t.Fatal(err)
	}
	l, g := s.started(t, w)
	if g.RunID != res.RunID {
		t.Fatalf("started %s; want the first Run %s", g.RunID, res.RunID)
	}
	second, err = s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "two"})
	if err != nil || !second.Created {
		t.Fatalf("second request: %+v, %v; want a waiting Run", second, err)
	}
	return startedRun{RunID: res.RunID, Lease: l}, second
}

// startedRun is a Run a worker started, with the lease it holds.
type startedRun struct {
	RunID string
	Lease workerproto.Lease
}

// endCancelled cancels r and reports its command stopped, as its worker
// does once it learns of the cancel: the Run has ended.
func (s *store) endCancelled(t *testing.T, w worker, r startedRun) {
	t.Helper()
	if _, _, err := s.runtime.CancelRun(t.Context(), r.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: r.Lease, Outcome: workerproto.OutcomeStopped}); err != nil {
		t.Fatal(err)
	}
}
