package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// lateLease outlasts every wait of these tests: the completions they send
// late are late by their own choice, never refused for a lease that ran out.
var lateLease = WorkerSettings{RunLease: time.Minute}

// startedLong is started with a lease of lateLease.
func (s *store) startedLong(t *testing.T, w worker) (workerproto.Lease, workerproto.Grant) {
	t.Helper()
	req, grants := s.pull(t, w, 1)
	if len(grants) != 1 {
		t.Fatalf("pull granted %d, want 1", len(grants))
	}
	l := lease(req, grants[0])
	reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, lateLease)
	if err != nil || reply.Reply != workerproto.ReplyRenewed {
		t.Fatalf("start: %+v, %v", reply, err)
	}
	return l, grants[0]
}

// endTimes are an attempt's start and finish, its Run's finish and the
// time of the Run's latest event, as the database holds them.
type endTimes struct {
	started, finished, runFinished, eventAt int64
}

func (s *store) endTimes(t *testing.T, attemptID string) endTimes {
	t.Helper()
	var e endTimes
	if err := s.super.QueryRow(t.Context(), `SELECT a.started_at_ms, a.finished_at_ms, r.finished_at_ms, ev.created_at_ms
		FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id
		JOIN qinglong.run_events ev ON ev.run_id = r.id AND ev.seq = r.last_event_seq
		WHERE a.id = $1`, attemptID).Scan(&e.started, &e.finished, &e.runFinished, &e.eventAt); err != nil {
		t.Fatal(err)
	}
	return e
}

// endedAgo is how long ago, in whole milliseconds, ended was: what a
// worker sends as EndedMsAgo.
func endedAgo(ended time.Time) int64 { return time.Since(ended).Milliseconds() }

// lateBy is how long after its command ended these tests report a result.
const lateBy = 800 * time.Millisecond

// endBeforeCancel is how long before a cancel a command ends in the test
// of a cancel asked after the end. The database places the end at its own
// time of the report less the milliseconds the report says, so the
// report's way to the database moves that end later by as long as the way
// takes: a loaded machine stretched it past the 50 ms this was once, and
// the end then fell after the cancel.
const endBeforeCancel = 500 * time.Millisecond

// A worker that could report its command's end only late (a replica it
// could not reach, reports sent again) says how long ago the command
// ended: the attempt, its Run and the Run's end event keep that end, so
// the duration shown is the command's, not the delivery's.
func TestACompletionReportedLateKeepsTheTimeItsCommandEnded(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "late-result", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.startedLong(t, w)
	ended := time.Now()
	time.Sleep(lateBy)
	req := exited(l, 0)
	req.EndedMsAgo = endedAgo(ended)
	done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, req)
	if err != nil || done.Finished != run.Succeeded {
		t.Fatalf("complete: %+v, %v; want the Run finished succeeded", done, err)
	}
	e := s.endTimes(t, l.AttemptID)
	if took := time.Duration(e.finished-e.started) * time.Millisecond; took >= lateBy/2 || e.runFinished != e.finished || e.eventAt != e.finished {
		t.Fatalf("the attempt took %s, finished at %d, its Run at %d, %s written at %d; want under %s, all at the command's end",
			took, e.finished, e.runFinished, run.EventSucceeded, e.eventAt, lateBy/2)
	}
	if name, _ := s.endEvent(t, g.RunID); name != run.EventSucceeded {
		t.Fatalf("end event %s, want %s", name, run.EventSucceeded)
	}
	s.checkRunHistories(t)
}

// A worker older than EndedMsAgo sends none: its late report ends the
// attempt when the replica accepts it, as every report did before.
func TestACompletionWithoutEndedAgoEndsWhenTheReplicaAcceptsIt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "old-worker", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.startedLong(t, w)
	time.Sleep(lateBy)
	before, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0)); err != nil {
		t.Fatal(err)
	}
	if e := s.endTimes(t, l.AttemptID); e.finished < before || e.runFinished != e.finished {
		t.Fatalf("the attempt finished at %d, its Run at %d; want both at the report's acceptance, at or after %d", e.finished, e.runFinished, before)
	}
}

// A worker's count is never trusted beyond what the database knows: an
// end said to be before the attempt started is its start, and a negative
// count is refused as invalid, changing nothing.
func TestAnEndedAgoNeverMovesTheEndOutsideWhatTheDatabaseKnows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "wrong-worker", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.startedLong(t, w)
	negative := exited(l, 0)
	negative.EndedMsAgo = -5_000
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, negative); !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("a negative endedMsAgo: %v; want it refused as invalid", err)
	}
	if a := s.attempt(t, l.AttemptID); a.State != string(run.AttemptRunning) {
		t.Fatalf("attempt %s after the refused report, want running", a.State)
	}
	early := exited(l, 0)
	early.EndedMsAgo = time.Hour.Milliseconds()
	if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, early); err != nil {
		t.Fatal(err)
	}
	if e := s.endTimes(t, l.AttemptID); e.finished != e.started || e.runFinished < e.finished || e.eventAt != e.runFinished {
		t.Fatalf("started %d, finished %d, Run finished %d, end event at %d; want the end held at the start, the Run's no earlier", e.started, e.finished, e.runFinished, e.eventAt)
	}
	s.checkRunHistories(t)
}

// A cancel asked after the command had ended, while its result was on
// its way, had nothing to cancel: the command's result is recorded
// (exit 0 succeeded, exit 1 failed) and no retry follows the cancel. The
// attempt keeps the command's end; its Run ends after the cancel's event,
// so the Run's history stays in time order. A report that does not say
// when its command ended still ends the Run cancelled, as before.
func TestACancelAskedAfterTheCommandEndedLeavesItsResult(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, c := range []struct {
		name     string
		exit     int64
		sayEnded bool
		attempt  run.AttemptState
		run      run.State
	}{
		{"succeeded", 0, true, run.AttemptSucceeded, run.Succeeded},
		{"failed", 1, true, run.AttemptFailed, run.Failed},
		{"unsaid", 0, false, run.AttemptCancelled, run.Cancelled},
	} {
		projectID, _ := s.admitRuns(t, "cancel-after-end-"+c.name, 1)
		s.setCommand(t, projectID, storedRetry(3, 0, task.RetryOnFailed))
		w := s.newWorker(t, "w-"+c.name, nil, 1)
		l, g := s.startedLong(t, w)
		ended := time.Now()
		time.Sleep(endBeforeCancel)
		if _, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "ops"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(lateBy)
		req := exited(l, c.exit)
		if c.sayEnded {
			req.EndedMsAgo = endedAgo(ended)
		}
		done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, req)
		if err != nil || done.AttemptState != string(c.attempt) || done.Finished != c.run {
			t.Fatalf("%s: complete %+v, %v; want attempt %s, the Run finished %s", c.name, done, err, c.attempt, c.run)
		}
		if a := s.attempt(t, l.AttemptID); a.State != string(c.attempt) {
			t.Fatalf("%s: attempt %s, want %s", c.name, a.State, c.attempt)
		}
		var cancelAt int64
		var attempts int
		if err := s.super.QueryRow(t.Context(), `SELECT r.cancel_requested_at_ms, (SELECT count(*) FROM qinglong.attempts a WHERE a.run_id = r.id)
			FROM qinglong.runs r WHERE r.id = $1`, g.RunID).Scan(&cancelAt, &attempts); err != nil {
			t.Fatal(err)
		}
		if attempts != 1 {
			t.Fatalf("%s: %d attempts, want one: no retry follows a cancel", c.name, attempts)
		}
		if e := s.endTimes(t, l.AttemptID); c.sayEnded && (e.finished >= cancelAt || e.runFinished < cancelAt || e.eventAt != e.runFinished) {
			t.Fatalf("%s: attempt finished at %d, Run at %d, end event at %d, cancel asked at %d; want the attempt before the cancel, the Run's end after it",
				c.name, e.finished, e.runFinished, e.eventAt, cancelAt)
		}
	}
	s.checkRunHistories(t)
}

// A command that ended before its deadline keeps its own result however
// late its worker reports it, past the deadline; one its worker stopped
// for its timeout ends timed_out, even when it ended just before the
// database's deadline (the worker's copy of the deadline passes first).
func TestACommandThatEndedBeforeItsDeadlineIsNotTimedOutByALateReport(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, c := range []struct {
		name string
		req  func(workerproto.Lease) workerproto.CompleteRequest
		want run.AttemptState
	}{
		{"exited", func(l workerproto.Lease) workerproto.CompleteRequest { return exited(l, 0) }, run.AttemptSucceeded},
		{"stopped", func(l workerproto.Lease) workerproto.CompleteRequest {
			return workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeStopped, ErrorCode: workerproto.StopTimedOut}
		}, run.AttemptTimedOut},
	} {
		projectID, _ := s.admitRuns(t, "deadline-"+c.name, 1)
		s.setCommand(t, projectID, map[string]any{"timeoutMs": 400})
		w := s.newWorker(t, "w-"+c.name, nil, 1)
		l, _ := s.startedLong(t, w)
		ended := time.Now()
		s.waitPast(t, *s.attempt(t, l.AttemptID).DeadlineAtMs)
		req := c.req(l)
		req.EndedMsAgo = endedAgo(ended)
		done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, req)
		if err != nil || done.AttemptState != string(c.want) {
			t.Fatalf("%s past the deadline, ended before it: %+v, %v; want attempt %s", c.name, done, err, c.want)
		}
	}
	s.checkRunHistories(t)
}
