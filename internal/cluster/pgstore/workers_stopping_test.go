package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// listed is worker name's row of `ql workers list`, read through the
// admin role and, as the console reads it, the runtime role: both say
// the same.
func (s *store) listed(t *testing.T, name string) WorkerInfo {
	t.Helper()
	byAdmin, err := s.admin.WorkerList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byRuntime, err := s.runtime.WorkerList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range byAdmin {
		if w.Name != name {
			continue
		}
		if r := byRuntime[i]; r.Name != name || r.State != w.State || r.DrainedBy != w.DrainedBy || r.FreeSlots != w.FreeSlots {
			t.Fatalf("the runtime role lists %+v, the admin role %+v", r, w)
		}
		return w
	}
	t.Fatalf("worker %s is not listed: %+v", name, byAdmin)
	return WorkerInfo{}
}

// drainingWatch sends w's draining watch (max 0, draining), as a worker
// that drains sends it, and returns the state it answers.
func (s *store) drainingWatch(t *testing.T, w worker) string {
	t.Helper()
	req := w.offer(t, 0)
	req.Draining = true
	reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, req, testSettings)
	if err != nil {
		t.Fatalf("draining watch: %v", err)
	}
	if len(reply.Grants) != 0 {
		t.Fatalf("a draining watch was granted %d Runs, want none", len(reply.Grants))
	}
	return reply.State
}

// A worker that says on its draining watch that it drains, its
// credential active (it stops on a signal), turns its session draining at
// once: `ql workers list` shows it draining by its own stop with no free
// slot, a queued Run says every worker drains, a pull gets nothing, and
// its heartbeat and later watches leave it so; once it ends its session it
// is no longer listed live and the Run says no worker is connected.
func TestAWorkerSayingItDrainsIsListedDrainingByItsOwnStopAndAQueuedRunSaysEveryWorkerDrains(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "stopping", 1)
	queued := runs["t000"]
	w := s.newWorker(t, "w1", nil, 2)
	if got := s.listed(t, "w1"); got.State != "active" || got.DrainedBy != "" || got.FreeSlots != 2 {
		t.Fatalf("before it drains the list shows %+v, want active with 2 free slots", got)
	}
	if got := s.waitingOf(t, queued); got != nil {
		t.Fatalf("before it drains the Run waits %+v, want no reason: the worker takes it at its next pull", got)
	}

	if state := s.drainingWatch(t, w); state != workerproto.SessionDraining {
		t.Fatalf("the draining watch answered %s, want draining", state)
	}
	if got := s.listed(t, "w1"); got.State != "draining" || got.DrainedBy != DrainedByWorker || got.Sessions != 1 || got.FreeSlots != 0 {
		t.Fatalf("after its draining watch the list shows %+v, want draining by the worker, one session, no free slot", got)
	}
	if got := s.waitingOf(t, queued); got == nil || got.Reason != run.WaitWorkersDraining || got.Workers != 1 {
		t.Fatalf("after its draining watch the Run waits %+v, want %s of 1 worker", got, run.WaitWorkersDraining)
	}
	reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, w.offer(t, 1), testSettings)
	if err != nil || reply.State != workerproto.SessionDraining || len(reply.Grants) != 0 {
		t.Fatalf("a pull of the draining session: %+v, %v; want draining and no grant", reply, err)
	}
	hb, err := s.runtime.HeartbeatWorker(t.Context(), w.WorkerIdentity, workerproto.HeartbeatRequest{SessionID: w.session, Running: 1})
	if err != nil || hb.State != workerproto.SessionDraining {
		t.Fatalf("a heartbeat of the draining session: %+v, %v; want draining", hb, err)
	}
	if state := s.drainingWatch(t, w); state != workerproto.SessionDraining {
		t.Fatalf("a later draining watch answered %s, want draining", state)
	}
	if got := s.listed(t, "w1"); got.State != "draining" || got.DrainedBy != DrainedByWorker {
		t.Fatalf("after a heartbeat and another watch the list shows %+v, want still draining by the worker", got)
	}

	end, err := s.runtime.EndWorkerSession(t.Context(), w.WorkerIdentity, workerproto.EndRequest{SessionID: w.session})
	if err != nil || end.State != workerproto.SessionEnded {
		t.Fatalf("end: %+v, %v", end, err)
	}
	if got := s.listed(t, "w1"); got.State != "active" || got.DrainedBy != "" || got.Sessions != 0 {
		t.Fatalf("after its session ended the list shows %+v, want its credential active and no session", got)
	}
	if got := s.waitingOf(t, queued); got == nil || got.Reason != run.WaitNoWorker {
		t.Fatalf("after its session ended the Run waits %+v, want %s", got, run.WaitNoWorker)
	}
}

// A worker that never says it drains (one older than the draining watch
// keeps a plain watch, or none) leaves its session active, as before; a
// drained worker's draining watch leaves its drain the admin's, which the
// list says: `ql workers resume` is what returns it to service.
func TestOnlyADrainingWatchOfAnActiveCredentialCountsAsTheWorkersOwnStop(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "plain", 1)
	older := s.newWorker(t, "older", nil, 2)
	reply, err := s.runtime.PullGrants(t.Context(), older.WorkerIdentity, older.offer(t, 0), testSettings)
	if err != nil || reply.State != workerproto.SessionActive {
		t.Fatalf("a plain watch: %+v, %v; want active", reply, err)
	}
	if got := s.listed(t, "older"); got.State != "active" || got.DrainedBy != "" || got.FreeSlots != 2 {
		t.Fatalf("after a plain watch the list shows %+v, want active with 2 free slots", got)
	}
	if got := s.waitingOf(t, runs["t000"]); got != nil {
		t.Fatalf("with a worker that never said it drains the Run waits %+v, want no reason", got)
	}

	drained := s.newWorker(t, "drained", nil, 2)
	if err := s.admin.WorkerDrain(t.Context(), "drained"); err != nil {
		t.Fatal(err)
	}
	if state := s.drainingWatch(t, drained); state != workerproto.SessionDraining {
		t.Fatalf("the drained worker's draining watch answered %s, want draining", state)
	}
	if got := s.listed(t, "drained"); got.State != "draining" || got.DrainedBy != DrainedByAdmin || got.FreeSlots != 0 {
		t.Fatalf("a drained worker that keeps its draining watch is listed %+v, want draining by the admin, no free slot", got)
	}
	var stopping int64
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.worker_sessions WHERE stopping_at_ms IS NOT NULL`).Scan(&stopping); err != nil {
		t.Fatal(err)
	}
	if stopping != 0 {
		t.Fatalf("%d sessions recorded as stopping on their own, want none: one never said it drains, the other was drained", stopping)
	}
}

// A renewal that tells a worker its credential was drained records its
// session draining in the same step (SessionHeardDrainOfAttempt), as a
// pull or watch does: once `ql workers resume` lifts the drain, the
// process that heard it, which still exits once its commands end, is
// listed draining by the admin and resumed, with no free slot, and its
// draining watch does not turn that into a stop on a signal. A renewal
// replayed after the resume answers the same and changes nothing.
func TestASessionToldOfItsDrainStaysDrainingAfterTheResume(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "heard", 1)
	w := s.newWorker(t, "w2", nil, 2)
	l, _ := s.started(t, w)
	if err := s.admin.WorkerDrain(t.Context(), "w2"); err != nil {
		t.Fatal(err)
	}
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.SessionState != workerproto.SessionDraining {
		t.Fatalf("renew after the drain: %+v, %v; want the session told draining", reply, err)
	}
	if err := s.admin.WorkerResume(t.Context(), "w2"); err != nil {
		t.Fatal(err)
	}
	again, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || again.SessionState != workerproto.SessionDraining || again.LeaseVersion != reply.LeaseVersion {
		t.Fatalf("the renewal replayed after the resume: %+v, %v; want the same answer, draining", again, err)
	}
	if got := s.listed(t, "w2"); got.State != "draining" || got.DrainedBy != DrainedByAdmin || !got.Resumed || got.FreeSlots != 0 {
		t.Fatalf("after the resume the list shows %+v, want draining by the admin, resumed, no free slot", got)
	}
	if state := s.drainingWatch(t, w); state != workerproto.SessionDraining {
		t.Fatalf("the draining watch answered %s, want draining", state)
	}
	if got := s.listed(t, "w2"); got.DrainedBy != DrainedByAdmin || !got.Resumed {
		t.Fatalf("after its draining watch the list shows %+v, want still the admin's drain, resumed", got)
	}
}
