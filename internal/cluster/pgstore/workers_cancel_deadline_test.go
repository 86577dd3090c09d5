package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// lateCancel starts an attempt whose 1 ms timeout then passes in database
// time, and only then asks its Run's cancel: the deadline came first.
func (s *store) lateCancel(t *testing.T, name string) (worker, workerproto.Lease, workerproto.Grant) {
	t.Helper()
	projectID, _ := s.admitRuns(t, name, 1)
	cmd := storedRetry(3, 0, task.RetryOnTimedOut)
	cmd["timeoutMs"] = 1
	s.setCommand(t, projectID, cmd)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	s.waitPast(t, *s.attempt(t, l.AttemptID).DeadlineAtMs)
	if _, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "ops"); err != nil {
		t.Fatal(err)
	}
	return w, l, g
}

// A worker still renewing when a cancel is asked after its command's
// deadline passed is told timed_out, not cancelled, and its completion
// ends attempt and Run timed_out — with no retry, although the policy
// lists timed_out: the cancel still says the Run should not go on.
func TestACancelAskedAfterTheDeadlinePassedLeavesTheCompletedRunTimedOut(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w, l, g := s.lateCancel(t, "late-cancel")
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyStop || reply.StopReason != workerproto.StopTimedOut {
		t.Fatalf("renew after a cancel asked past the deadline: %+v, %v; want stop (timed_out)", reply, err)
	}
	l.LeaseVersion = reply.LeaseVersion
	done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: l,
		Outcome: workerproto.OutcomeStopped, ErrorCode: workerproto.StopTimedOut})
	if err != nil || done.AttemptState != string(run.AttemptTimedOut) || done.RunState != string(run.TimedOut) || done.Finished != run.TimedOut {
		t.Fatalf("complete: %+v, %v; want attempt and Run timed_out, finished", done, err)
	}
	if name, payload := s.endEvent(t, g.RunID); name != run.EventTimedOut || payload["outcome"] != string(run.AttemptTimedOut) || payload["errorCode"] != workerproto.StopTimedOut {
		t.Fatalf("end event %s %v; want run.timed_out, outcome timed_out, errorCode %s", name, payload, workerproto.StopTimedOut)
	}
	s.checkRunHistories(t)
}

// The walk's case: a worker killed while its command ran, its deadline
// passed, then a cancel asked; the sweep ends the attempt once the lease
// ran out. The deadline came first, so Run, attempt, event and error code
// all say timed_out (lease_expired_after_timeout), and no retry follows.
func TestASweptAttemptWhoseCancelCameAfterItsDeadlineEndsTimedOutWithItsRun(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, l, g := s.lateCancel(t, "killed-worker")
	s.exec(t, `UPDATE qinglong.attempts SET lease_expires_at_ms = `+ClockMsSQL+` - 1 WHERE id = $1`, l.AttemptID)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Lost != 1 || res.Retried != 0 || res.Finished != (run.FinishCounts{TimedOut: 1}) {
		t.Fatalf("sweep %+v, %v; want the attempt ended and its Run finished timed_out, not retried", res, err)
	}
	if state, code, _, runCode := s.sweptEnd(t, l.AttemptID); state != string(run.AttemptTimedOut) || code != ErrorCodeLeaseExpiredAfterTimeout || runCode != ErrorCodeLeaseExpiredAfterTimeout {
		t.Fatalf("attempt %s (%s), end event's code %s; want timed_out with %s in both", state, code, runCode, ErrorCodeLeaseExpiredAfterTimeout)
	}
	if state, _ := s.runState(t, g.RunID); state != string(run.TimedOut) {
		t.Fatalf("run is %s, want timed_out: the deadline came before the cancel", state)
	}
	if name, payload := s.endEvent(t, g.RunID); name != run.EventTimedOut || payload["outcome"] != string(run.AttemptTimedOut) {
		t.Fatalf("end event %s %v; want run.timed_out with outcome timed_out", name, payload)
	}
	s.checkRunHistories(t)
}

// A cancel asked before the deadline decides the end even when the
// worker then vanished and its lease ran out past the deadline: the Run
// ends cancelled, and its attempt lost (nothing says the command heard
// the stop), never timed_out beside a cancelled Run.
func TestASweptAttemptWhoseCancelCameBeforeItsDeadlineEndsItsRunCancelled(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "early-cancel", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	if _, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "ops"); err != nil {
		t.Fatal(err)
	}
	s.exec(t, `UPDATE qinglong.attempts a SET deadline_at_ms = r.cancel_requested_at_ms + 1, lease_expires_at_ms = r.cancel_requested_at_ms + 1
		FROM qinglong.runs r WHERE r.id = a.run_id AND a.id = $1`, l.AttemptID)
	s.waitPast(t, *s.attempt(t, l.AttemptID).ExpiresAtMs)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Lost != 1 || res.Finished != (run.FinishCounts{Cancelled: 1}) {
		t.Fatalf("sweep %+v, %v; want the Run finished cancelled", res, err)
	}
	if state, code, _, _ := s.sweptEnd(t, l.AttemptID); state != string(run.AttemptLost) || code != ErrorCodeLeaseExpired {
		t.Fatalf("attempt %s (%s), want lost with %s", state, code, ErrorCodeLeaseExpired)
	}
	if name, payload := s.endEvent(t, g.RunID); name != run.EventCancelled || payload["outcome"] != string(run.AttemptCancelled) {
		t.Fatalf("end event %s %v; want run.cancelled with outcome cancelled", name, payload)
	}
	s.checkRunHistories(t)
}
