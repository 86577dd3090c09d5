package pgstore

import (
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// The finish reports of the cluster's own paths (retries, replicas racing
// on one expiry, a cancel racing a completion); the paths both stores
// share are in storetest.RunFinished.

// A failed attempt that gets another under the retry policy has not
// finished its Run: only the completion of the last attempt reports it,
// and a replay of the first reports nothing either.
func TestARetriedRunIsReportedFinishedOnlyByItsLastAttempt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "retried", 1)
	s.setCommand(t, projectID, storedRetry(2, 0, "failed"))
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	first, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1))
	if err != nil || first.RunState != string(run.RetryWait) || first.Replayed || first.Finished != "" {
		t.Fatalf("attempt 1 failed: %+v, %v; want retry_wait and the Run not finished", first, err)
	}
	again, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1))
	if err != nil || again.RunState != string(run.RetryWait) || !again.Replayed || again.Finished != "" {
		t.Fatalf("attempt 1's completion replayed: %+v, %v; want a replay that finished nothing", again, err)
	}
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Requeued != 1 || res.Finished != (run.FinishCounts{}) {
		t.Fatalf("sweep after the backoff: %+v, %v; want the Run queued again, nothing finished", res, err)
	}
	l2, _ := s.started(t, w)
	last, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l2, 1))
	if err != nil || last.RunState != string(run.Failed) || last.Finished != run.Failed {
		t.Fatalf("attempt 2 failed: %+v, %v; want the Run finished failed by this call", last, err)
	}
	if again, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l2, 1)); err != nil || !again.Replayed || again.Finished != "" {
		t.Fatalf("attempt 2's completion replayed: %+v, %v; want a replay that finished nothing", again, err)
	}
}

// Two replicas sweep the same expired leases at once: every Run is
// reported finished (lost) by exactly one of them.
func TestRacingSweepsReportEachLostRunOnce(t *testing.T) {
	t.Parallel()
	const n = 12
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "racing", n)
	w := s.newWorker(t, "w1", nil, n)
	for range n {
		s.started(t, w)
	}
	s.exec(t, `UPDATE qinglong.attempts a SET lease_expires_at_ms = `+ClockMsSQL+` - 1
		FROM qinglong.runs r WHERE r.id = a.run_id AND r.project_id = $1`, projectID)
	const sweepers = 4
	results := make([]SweepResult, sweepers)
	var wg sync.WaitGroup
	for i := range sweepers {
		wg.Go(func() {
			// Pages of 2, so that the sweeps interleave over the rows.
			for {
				res, err := s.runtime.SweepLeases(t.Context(), 2)
				if err != nil {
					t.Errorf("sweep %d: %v", i, err)
					return
				}
				if res.Lost == 0 {
					return
				}
				results[i].Lost += res.Lost
				results[i].Finished.Merge(res.Finished)
			}
		})
	}
	wg.Wait()
	var lost int
	var finished run.FinishCounts
	for _, r := range results {
		lost += r.Lost
		finished.Merge(r.Finished)
	}
	if lost != n || finished != (run.FinishCounts{Lost: n}) {
		t.Fatalf("the sweeps ended %d attempts and report %+v finished (each: %+v); want %d, each Run lost once", lost, finished, results, n)
	}
	s.checkRunHistories(t)
}

// A cancel races the completion of a running Run: whichever commits first,
// the Run is reported finished once — by the completion, cancelled when
// the cancel's intent came first, failed otherwise — and never by the
// cancel, which at most records the intent.
func TestACancelRacingACompletionReportsTheRunOnce(t *testing.T) {
	t.Parallel()
	const rounds = 6
	s := newStore(t)
	s.admitRuns(t, "raced", rounds)
	w := s.newWorker(t, "w1", nil, rounds)
	for i := range rounds {
		l, g := s.started(t, w)
		var done Completed
		var cancelled run.CancelEffect
		var completeErr, cancelErr error
		var wg sync.WaitGroup
		wg.Go(func() { done, completeErr = s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1)) })
		wg.Go(func() { _, cancelled, cancelErr = s.runtime.CancelRun(t.Context(), g.RunID, "test") })
		wg.Wait()
		if completeErr != nil || cancelErr != nil {
			t.Fatalf("round %d: complete %v, cancel %v", i, completeErr, cancelErr)
		}
		state, _ := s.runState(t, g.RunID)
		if cancelled.Finished || done.Finished != run.State(state) || (state != string(run.Failed) && state != string(run.Cancelled)) {
			t.Fatalf("round %d: the Run is %s; the completion reports %q finished, the cancel %v; want the completion alone to report the Run's end",
				i, state, done.Finished, cancelled)
		}
	}
	s.checkRunHistories(t)
}

// A start that finds its Run's cancel asked ends the Run cancelled and
// says so; its replay finds the attempt ended and says nothing.
func TestAStartThatCancelsItsRunReportsItOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "start-cancel", 1)
	w := s.newWorker(t, "w1", nil, 1)
	req, grants := s.pull(t, w, 1)
	if len(grants) != 1 {
		t.Fatalf("pull granted %d, want 1", len(grants))
	}
	l := lease(req, grants[0])
	// The cancel intent of a Run whose grant is not started yet: only a
	// Run left so by an earlier version reaches the start this way, as
	// CancelRun cancels an unstarted grant at once.
	s.exec(t, `UPDATE qinglong.runs SET cancel_requested_at_ms = `+ClockMsSQL+` WHERE id = $1`, grants[0].RunID)
	started, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, testSettings)
	if err != nil || started.Reply != workerproto.ReplyTerminal || started.Finished != run.Cancelled {
		t.Fatalf("start of a cancelled Run: %+v, %v; want terminal and the Run finished cancelled", started, err)
	}
	again, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, testSettings)
	if err != nil || again.Reply != workerproto.ReplyTerminal || again.Finished != "" {
		t.Fatalf("start replayed: %+v, %v; want terminal and nothing finished", again, err)
	}
	s.checkRunHistories(t)
}
