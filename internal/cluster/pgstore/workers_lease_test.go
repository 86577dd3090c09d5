package pgstore

import (
	"time"

	"bytes"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

func exited(l workerproto.Lease, code int64) workerproto.CompleteRequest {
	return workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeExited, ExitCode: &code}
}

func TestStartRunsTheAttemptWithADeadlineInDatabaseTime(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "start", 1)
	s.setCommand(t, projectID, map[string]any{"timeoutMs": 60_000})
	w := s.newWorker(t, "w1", nil, 1)
	req, grants := s.pull(t, w, 1)
	l := lease(req, grants[0])
	before, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyRenewed || reply.LeaseVersion != 1 || reply.DeadlineMs <= 59_000 || reply.DeadlineMs > 60_000 {
		t.Fatalf("start: %+v, %v", reply, err)
	}
	a := s.attempt(t, l.AttemptID)
	if a.State != "running" || a.DeadlineAtMs == nil || *a.DeadlineAtMs < before+60_000 {
		t.Fatalf("attempt after start: %+v", a)
	}
	if state, _ := s.runState(t, grants[0].RunID); state != "running" {
		t.Fatalf("run is %s after start, want running", state)
	}
	// A replayed start changes nothing and answers alike.
	again, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, testSettings)
	if err != nil || again.Reply != workerproto.ReplyRenewed || again.LeaseVersion != 1 {
		t.Fatalf("replayed start: %+v, %v", again, err)
	}
	if b := s.attempt(t, l.AttemptID); *b.DeadlineAtMs != *a.DeadlineAtMs {
		t.Fatal("a replayed start moved the deadline")
	}
	s.checkRunHistories(t)
}

// A command that exits on its own after its deadline passed in database
// time ends timed_out with the code timed_out, as one the worker stopped
// for its timeout does, not with its exit's code.
func TestACommandExitingAfterItsDeadlineEndsTimedOutWithTheTimeoutsCode(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "late", 1)
	s.setCommand(t, projectID, map[string]any{"timeoutMs": 1})
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	s.waitPast(t, *s.attempt(t, l.AttemptID).DeadlineAtMs)
	done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1))
	if err != nil || done.AttemptState != "timed_out" || done.RunState != "timed_out" {
		t.Fatalf("complete after the deadline: %+v, %v; want timed_out", done, err)
	}
	var code *string
	if err := s.super.QueryRow(t.Context(), `SELECT error_code FROM qinglong.attempts WHERE id = $1`, l.AttemptID).Scan(&code); err != nil || code == nil || *code != workerproto.StopTimedOut {
		t.Fatalf("error code %v (%v); want %s, not the exit's", code, err, workerproto.StopTimedOut)
	}
	if name, payload := s.endEvent(t, g.RunID); name != run.EventTimedOut || payload["errorCode"] != workerproto.StopTimedOut {
		t.Fatalf("end event %s %v; want run.timed_out with errorCode %s", name, payload, workerproto.StopTimedOut)
	}
}

func TestRenewReplyStopOnCancelAndTimeout(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "renew", 2)
	w := s.newWorker(t, "w1", nil, 2)
	l, g := s.started(t, w)
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyRenewed || reply.LeaseVersion != 2 {
		t.Fatalf("renew: %+v, %v", reply, err)
	}
	// The reply was lost: renewing version 1 again answers the same.
	replay, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || replay.Reply != workerproto.ReplyRenewed || replay.LeaseVersion != 2 {
		t.Fatalf("replayed renew: %+v, %v", replay, err)
	}
	if v := *s.attempt(t, l.AttemptID).LeaseVersion; v != 2 {
		t.Fatalf("lease at version %d after a renewal and its replay, want 2", v)
	}
	// Cancel intent travels on the next renewal.
	if _, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	l.LeaseVersion = 2
	reply, err = s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyStop || reply.StopReason != workerproto.StopCancelled || reply.LeaseVersion != 3 {
		t.Fatalf("renew after cancel: %+v, %v; want stop (cancelled) with the lease extended", reply, err)
	}
	// A deadline passed in database time says timed_out.
	s.setCommand(t, projectID, map[string]any{"timeoutMs": 1})
	l2, _ := s.started(t, w)
	s.waitPast(t, *s.attempt(t, l2.AttemptID).DeadlineAtMs)
	reply, err = s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l2}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyStop || reply.StopReason != workerproto.StopTimedOut || reply.DeadlineMs != 0 {
		t.Fatalf("renew past the deadline: %+v, %v; want stop (timed_out)", reply, err)
	}
	// The worker stops the command and completes: the intent wins over
	// the exit code.
	l2.LeaseVersion = reply.LeaseVersion
	done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: l2, Outcome: workerproto.OutcomeStopped})
	if err != nil || done.AttemptState != "timed_out" || done.RunState != "timed_out" {
		t.Fatalf("complete after timeout: %+v, %v", done, err)
	}
	l.LeaseVersion = 3
	done, err = s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0))
	if err != nil || done.AttemptState != "cancelled" || done.RunState != "cancelled" {
		t.Fatalf("complete after cancel with exit 0: %+v, %v; want cancelled", done, err)
	}
	s.checkRunHistories(t)
}

func TestRenewAfterLeaseExpiryIsTerminal(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "expired", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	s.lapse(t, l.AttemptID)
	// No sweep ran: database time alone ends the lease.
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyTerminal {
		t.Fatalf("renew after expiry: %+v, %v; want terminal", reply, err)
	}
	if a := s.attempt(t, l.AttemptID); *a.LeaseVersion != 1 || a.State != "running" {
		t.Fatalf("a refused renewal changed the attempt: %+v", a)
	}
}

func TestLogAppendOffsetFencedAndIdempotent(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "logs", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	appendLog := func(offset int64, data string) (workerproto.LogReply, error) {
		return s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: offset, Data: []byte(data)}, testSettings)
	}
	if r, err := appendLog(0, "hello "); err != nil || r.LogBytes != 6 {
		t.Fatalf("first chunk: %+v, %v", r, err)
	}
	if r, err := appendLog(6, "world\n"); err != nil || r.LogBytes != 12 {
		t.Fatalf("second chunk: %+v, %v", r, err)
	}
	// A replay of an accepted chunk is accepted and stored once.
	if r, err := appendLog(6, "world\n"); err != nil || r.LogBytes != 12 {
		t.Fatalf("replayed chunk: %+v, %v", r, err)
	}
	// Other bytes at an accepted offset, a gap, or a stale lease version
	// are refused.
	for _, c := range []struct {
		offset int64
		data   string
	}{{6, "WORLD\n"}, {20, "gap"}, {3, "lo "}} {
		if _, err := appendLog(c.offset, c.data); !qlerror.Is(err, qlerror.Conflict) {
			t.Errorf("chunk %q at %d: %v, want conflict", c.data, c.offset, err)
		}
	}
	stale := l
	stale.LeaseVersion = 7
	if _, err := s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: stale, Offset: 12, Data: []byte("x")}, testSettings); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("stale lease version: %v, want conflict", err)
	}
	var out bytes.Buffer
	next, truncated, err := s.runtime.ReadAttemptLog(t.Context(), l.AttemptID, 0, &out)
	if err != nil || next != 12 || truncated || out.String() != "hello world\n" {
		t.Fatalf("read %q next %d truncated %v err %v", out.String(), next, truncated, err)
	}
	out.Reset()
	if next, _, err := s.runtime.ReadAttemptLog(t.Context(), l.AttemptID, 8, &out); err != nil || next != 12 || out.String() != "rld\n" {
		t.Fatalf("read from 8: %q next %d err %v", out.String(), next, err)
	}
	// A read of at most max bytes, from inside a chunk, across chunks, up
	// to a chunk's end and past the log's, stops where it says.
	for _, c := range []struct {
		offset, max, next int64
		want              string
	}{{0, 4, 4, "hell"}, {4, 4, 8, "o wo"}, {3, 3, 6, "lo "}, {6, 6, 12, "world\n"}, {8, 100, 12, "rld\n"}, {12, 5, 12, ""}} {
		out.Reset()
		if next, _, err := s.runtime.ReadAttemptLogUpTo(t.Context(), l.AttemptID, c.offset, c.max, &out); err != nil || next != c.next || out.String() != c.want {
			t.Errorf("read %d bytes from %d: %q next %d err %v; want %q next %d", c.max, c.offset, out.String(), next, err, c.want, c.next)
		}
	}
	if _, _, err := s.runtime.ReadAttemptLogUpTo(t.Context(), l.AttemptID, 0, 0, &out); !qlerror.Is(err, qlerror.Invalid) {
		t.Errorf("a read of 0 bytes: %v; want it refused", err)
	}
	var chunks int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.run_log_chunks WHERE attempt_id = $1`, l.AttemptID).Scan(&chunks); err != nil || chunks != 2 {
		t.Fatalf("%d chunks stored (%v), want 2", chunks, err)
	}
}

func TestLogCapTruncates(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "cap", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	capped := WorkerSettings{RunLease: testSettings.RunLease, LogCap: 10}
	r, err := s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: 0, Data: []byte("0123456")}, capped)
	if err != nil || r.Truncated {
		t.Fatalf("under the cap: %+v, %v", r, err)
	}
	r, err = s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: 7, Data: []byte("789abcdef")}, capped)
	if err != nil || !r.Truncated {
		t.Fatalf("over the cap: %+v, %v; want truncated", r, err)
	}
	held := r.LogBytes
	r, err = s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: held, Data: []byte("more")}, capped)
	if err != nil || !r.Truncated || r.LogBytes != held {
		t.Fatalf("after truncation: %+v, %v; want nothing stored", r, err)
	}
	var out bytes.Buffer
	_, truncated, err := s.runtime.ReadAttemptLog(t.Context(), l.AttemptID, 0, &out)
	if err != nil || !truncated || !strings.HasPrefix(out.String(), "0123456789\n[qinglong: output truncated at the log cap of 10 bytes; the rest was dropped]") {
		t.Fatalf("log %q truncated %v err %v", out.String(), truncated, err)
	}
	if out.Len() != 10+len(run.TruncationMarker(10)) || len(run.TruncationMarker(MaxLogCap)) >= 100 {
		t.Fatalf("a log of %d bytes at a cap of 10; the largest marker has %d bytes; want the cap plus one marker of under 100", out.Len(), len(run.TruncationMarker(MaxLogCap)))
	}
	if a := s.attempt(t, l.AttemptID); !a.LogTruncated || a.LogBytes != int64(out.Len()) {
		t.Fatalf("attempt %+v after truncation, log of %d bytes", a, out.Len())
	}
}

func TestCompleteAfterLeaseExpiryIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "late", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	s.lapse(t, l.AttemptID)
	before := s.fingerprintRuns(t)
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0)); !qlerror.Is(err, qlerror.Conflict) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("completion after expiry: %v, want conflict naming the expiry", err)
	}
	if after := s.fingerprintRuns(t); after != before {
		t.Fatal("a refused completion changed runs, attempts or events")
	}
	// Once the sweep made it lost, the late completion is still refused.
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep %+v, %v", res, err)
	}
	before = s.fingerprintRuns(t)
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0)); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("completion of a lost attempt: %v, want conflict", err)
	}
	if after := s.fingerprintRuns(t); after != before {
		t.Fatal("a refused completion changed a lost attempt")
	}
	if state, _ := s.runState(t, g.RunID); state != "lost" {
		t.Fatalf("run is %s, want lost (no retry policy)", state)
	}
}

func TestCompleteReplayReturnsTheSameAnswer(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "done", 2)
	w := s.newWorker(t, "w1", nil, 2)
	l, g := s.started(t, w)
	first, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0))
	if err != nil || first.AttemptState != "succeeded" || first.RunState != "succeeded" || first.Replayed || first.Finished != run.Succeeded {
		t.Fatalf("complete: %+v, %v; want the Run finished succeeded by this call", first, err)
	}
	_, version := s.runState(t, g.RunID)
	// The worker's retry of a completion whose reply it lost: the same
	// answer, reported as a replay that finished nothing.
	again, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0))
	if err != nil || again.CompleteReply != first.CompleteReply || !again.Replayed || again.Finished != "" {
		t.Fatalf("replayed completion: %+v, %v; want %+v as a replay that finished nothing", again, err, first.CompleteReply)
	}
	if _, v := s.runState(t, g.RunID); v != version {
		t.Fatal("a replayed completion changed the run")
	}
	l2, g2 := s.started(t, w)
	failed, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l2, 3))
	if err != nil || failed.AttemptState != "failed" || failed.RunState != "failed" {
		t.Fatalf("exit 3: %+v, %v", failed, err)
	}
	var exit int64
	if err := s.super.QueryRow(t.Context(), `SELECT exit_code FROM qinglong.attempts WHERE run_id = $1`, g2.RunID).Scan(&exit); err != nil || exit != 3 {
		t.Fatalf("exit code %d (%v), want 3", exit, err)
	}
	s.checkRunHistories(t)
}

// endEvent is the last event of a Run: its name and payload.
func (s *store) endEvent(t *testing.T, runID string) (string, map[string]any) {
	t.Helper()
	var name string
	var payload map[string]any
	if err := s.super.QueryRow(t.Context(), `SELECT name, payload FROM qinglong.run_events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`, runID).
		Scan(&name, &payload); err != nil {
		t.Fatal(err)
	}
	return name, payload
}

// The event ending a Run carries the attempt's exit code and error code,
// as a standalone server's does.
func TestTheRunsEndEventCarriesTheExitCodeAndErrorCode(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "exit", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	req := exited(l, 3)
	req.ErrorCode = "exit_nonzero"
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, req); err != nil {
		t.Fatal(err)
	}
	name, payload := s.endEvent(t, g.RunID)
	if name != run.EventFailed || payload["exitCode"] != 3.0 || payload["errorCode"] != "exit_nonzero" || payload["outcome"] != "failed" {
		t.Fatalf("end event %s %v; want run.failed with exitCode 3 and errorCode exit_nonzero", name, payload)
	}
}

// A command killed by a signal names it, by number and name, in its
// attempt's error message and in its Run's end event; a signal with another
// outcome, or outside the signals, is refused.
func TestASignaledCompletionNamesTheSignalInTheMessageAndTheRunsEndEvent(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "sig", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	for _, bad := range []workerproto.CompleteRequest{
		{Lease: l, Outcome: workerproto.OutcomeSignaled, ErrorCode: "killed_by_signal", Signal: workerproto.MaxSignal + 1},
		{Lease: l, Outcome: workerproto.OutcomeStopped, ErrorCode: "cancelled", Signal: 9},
	} {
		if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, bad); !qlerror.Is(err, qlerror.Invalid) {
			t.Fatalf("completion %+v: %v; want invalid", bad, err)
		}
	}
	req := workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeSignaled, ErrorCode: "killed_by_signal", Signal: 9}
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, req); err != nil {
		t.Fatal(err)
	}
	var msg string
	if err := s.super.QueryRow(t.Context(), `SELECT error_message FROM qinglong.attempts WHERE id = $1`, l.AttemptID).Scan(&msg); err != nil || msg != "the command was killed by signal 9 (SIGKILL)" {
		t.Fatalf("error message %q (%v); want it to name SIGKILL", msg, err)
	}
	name, payload := s.endEvent(t, g.RunID)
	if name != run.EventFailed || payload["errorCode"] != "killed_by_signal" || payload["signal"] != 9.0 || payload["signalName"] != "SIGKILL" {
		t.Fatalf("end event %s %v; want run.failed naming signal 9, SIGKILL", name, payload)
	}
}

// An attempt whose worker stopped before its command ended (a rolling
// restart) ends lost, as a dead worker's does, so a retry policy on lost
// makes the next attempt; without one the Run is lost, not failed.
func TestAnAttemptEndedByItsWorkerStoppingIsLostAndRetried(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "shutdown", 2)
	stopped := func(l workerproto.Lease) workerproto.CompleteRequest {
		return workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeStopped, ErrorCode: workerproto.StopWorkerShutdown}
	}
	w := s.newWorker(t, "w1", nil, 2)
	l, _ := s.started(t, w)
	if reply, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, stopped(l)); err != nil || reply.AttemptState != "lost" || reply.RunState != "lost" {
		t.Fatalf("stopped by the worker's shutdown, no retry policy: %+v, %v; want lost", reply, err)
	}
	s.setCommand(t, projectID, map[string]any{"retry": map[string]any{"maxAttempts": 2, "backoffMs": 0, "on": []string{"lost"}}})
	l2, _ := s.started(t, w)
	if reply, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, stopped(l2)); err != nil || reply.AttemptState != "lost" || reply.RunState != "retry_wait" {
		t.Fatalf("stopped by the worker's shutdown, retried on lost: %+v, %v; want lost and retry_wait", reply, err)
	}
	s.checkRunHistories(t)
}

func TestOtherWorkersLeaseIsForbidden(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "mine", 1)
	owner := s.newWorker(t, "owner", nil, 1)
	thief := s.newWorker(t, "thief", nil, 1)
	l, _ := s.started(t, owner)
	before := s.fingerprintRuns(t)
	if _, err := s.runtime.RenewAttempt(t.Context(), thief.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings); !qlerror.Is(err, qlerror.PermissionDenied) {
		t.Errorf("renew by another worker: %v", err)
	}
	if _, err := s.runtime.AppendAttemptLog(t.Context(), thief.WorkerIdentity, workerproto.LogRequest{Lease: l, Data: []byte("x")}, testSettings); !qlerror.Is(err, qlerror.PermissionDenied) {
		t.Errorf("log by another worker: %v", err)
	}
	if _, err := s.runtime.CompleteAttempt(t.Context(), thief.WorkerIdentity, exited(l, 0)); !qlerror.Is(err, qlerror.PermissionDenied) {
		t.Errorf("complete by another worker: %v", err)
	}
	if _, err := s.runtime.HeartbeatWorker(t.Context(), thief.WorkerIdentity, workerproto.HeartbeatRequest{SessionID: owner.session}); !qlerror.Is(err, qlerror.PermissionDenied) {
		t.Errorf("heartbeat of another worker's session: %v", err)
	}
	if _, err := s.runtime.PullGrants(t.Context(), thief.WorkerIdentity, owner.offer(t, 1), testSettings); !qlerror.Is(err, qlerror.PermissionDenied) {
		t.Errorf("pull on another worker's session: %v", err)
	}
	// The owner's own steps still work under a wrong token: refused, not
	// forbidden.
	wrong := thief.offer(t, 1)
	forged := workerproto.Lease{AttemptID: l.AttemptID, Token: wrong.Token, LeaseVersion: 1}
	if _, err := s.runtime.CompleteAttempt(t.Context(), owner.WorkerIdentity, exited(forged, 0)); !qlerror.Is(err, qlerror.Conflict) {
		t.Errorf("complete under a wrong token: %v", err)
	}
	if after := s.fingerprintRuns(t); after != before {
		t.Fatal("a refused step changed runs, attempts or events")
	}
}

func TestAWorkerIgnoringAStopIsNoLongerRenewedAfterTheLeaseAndKillGrace(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "deaf", 1)
	s.setCommand(t, projectID, map[string]any{"killGraceMs": 1})
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	// A lease long enough that a renewal every tenth of it never lets it
	// lapse on a busy machine.
	settings := WorkerSettings{RunLease: 2 * time.Second}
	if _, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	// Heard at once: the stop comes with a renewed lease, for the kill.
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, settings)
	if err != nil || reply.Reply != workerproto.ReplyStop || reply.LeaseVersion != 2 {
		t.Fatalf("first renewal after the cancel: %+v, %v; want stop with the lease extended", reply, err)
	}
	var cancelAt int64
	if err := s.super.QueryRow(t.Context(), `SELECT cancel_requested_at_ms FROM qinglong.runs WHERE id = $1`, g.RunID).Scan(&cancelAt); err != nil {
		t.Fatal(err)
	}
	// The worker keeps renewing, every tenth of the lease, as if it had not
	// heard: each renewal repeats the stop, and once the stop is older than
	// the lease plus the kill grace the lease is no longer extended.
	l.LeaseVersion = reply.LeaseVersion
	var before int64
	for capped := false; !capped; {
		if now, _ := s.runtime.NowMs(t.Context()); now > cancelAt+3*settings.RunLease.Milliseconds() {
			t.Fatalf("renewals still extend the lease %d ms after the cancel", now-cancelAt)
		}
		time.Sleep(settings.RunLease / 10)
		before = *s.attempt(t, l.AttemptID).ExpiresAtMs
		reply, err = s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, settings)
		if err != nil || reply.Reply != workerproto.ReplyStop || reply.StopReason != workerproto.StopCancelled {
			t.Fatalf("renewal after the cancel: %+v, %v; want stop", reply, err)
		}
		capped = reply.LeaseVersion == l.LeaseVersion
		l.LeaseVersion = reply.LeaseVersion
	}
	a := s.attempt(t, l.AttemptID)
	if *a.ExpiresAtMs != before || *a.ExpiresAtMs-cancelAt < settings.RunLease.Milliseconds() {
		t.Fatalf("capped renewal: expiry %d → %d, cancel at %d; want the lease left as it was, extended through lease + grace", before, *a.ExpiresAtMs, cancelAt)
	}
	s.waitPast(t, before)
	reply, err = s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, settings)
	if err != nil || reply.Reply != workerproto.ReplyTerminal {
		t.Fatalf("renewal after the lease ran out: %+v, %v; want terminal", reply, err)
	}
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep %+v, %v; want the attempt ended", res, err)
	}
	if state, _ := s.runState(t, g.RunID); state != "cancelled" {
		t.Fatalf("run is %s, want cancelled", state)
	}
	s.checkRunHistories(t)
}

func TestALeaseRunningOutPastTheDeadlineEndsTheRunTimedOutNotLost(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "late", 1)
	s.setCommand(t, projectID, storedRetry(3, 0, "lost"))
	s.setCommand(t, projectID, map[string]any{"timeoutMs": 1})
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	// The worker vanished with the command past its timeout.
	s.waitPast(t, *s.attempt(t, l.AttemptID).DeadlineAtMs)
	s.lapse(t, l.AttemptID)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Lost != 1 || res.Retried != 0 || res.RunsLost != 0 {
		t.Fatalf("sweep %+v, %v; want one attempt ended, not retried (retry is on lost only), no Run lost", res, err)
	}
	if a := s.attempt(t, l.AttemptID); a.State != "timed_out" {
		t.Fatalf("attempt is %s, want timed_out", a.State)
	}
	if state, _ := s.runState(t, g.RunID); state != "timed_out" {
		t.Fatalf("run is %s, want timed_out", state)
	}
	s.checkRunHistories(t)
}

// A worker that vanished while its command was still within its timeout
// leaves an attempt lost (and retried under on: [lost]) however late the
// sweep finds it: a sweep delayed past the deadline, as when every replica
// was down, must not call it timed out, since the lease ran out first.
func TestALeaseRunningOutBeforeTheDeadlineEndsTheAttemptLostEvenWhenSweptAfterIt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "vanished", 1)
	s.setCommand(t, projectID, storedRetry(3, 0, "lost"))
	s.setCommand(t, projectID, map[string]any{"timeoutMs": 3 * testSettings.RunLease.Milliseconds()})
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	a := s.attempt(t, l.AttemptID)
	if a.DeadlineAtMs == nil || *a.DeadlineAtMs <= *a.ExpiresAtMs {
		t.Fatalf("deadline %v, lease expiry %v; want the lease to run out first", a.DeadlineAtMs, *a.ExpiresAtMs)
	}
	// The worker vanished at once, and no sweep ran until the deadline
	// passed: the lease ends now and the deadline just after it.
	s.lapse(t, l.AttemptID)
	s.exec(t, `UPDATE qinglong.attempts SET deadline_at_ms = lease_expires_at_ms + 1 WHERE id = $1`, l.AttemptID)
	s.waitPast(t, *s.attempt(t, l.AttemptID).DeadlineAtMs)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Lost != 1 || res.Retried != 1 {
		t.Fatalf("sweep %+v, %v; want one attempt lost and retried", res, err)
	}
	if a := s.attempt(t, l.AttemptID); a.State != "lost" {
		t.Fatalf("attempt is %s, want lost: its lease ran out before its deadline", a.State)
	}
	if state, _ := s.runState(t, g.RunID); state != "retry_wait" && state != "queued" {
		t.Fatalf("run is %s, want it waiting for its retry", state)
	}
	s.checkRunHistories(t)
}
