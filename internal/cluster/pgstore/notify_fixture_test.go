package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// finisher ends Runs the way a worker and the lease sweep do, with one
// worker session opened on first use.
type finisher struct {
	s    *store
	once sync.Once
	w    worker
	err  error

	mu sync.Mutex
	// last repeats each Run's last finish (finishAgain).
	last map[string]func(context.Context) (run.State, error)
	// told is what each Run's last granted attempt was told (Told), as
	// the worker turns its grant into the command's variables.
	told map[string]run.Identity
}

func (f *finisher) toldOf(runID string) run.Identity {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.told[runID]
}

func (f *finisher) worker(ctx context.Context) (worker, error) {
	f.once.Do(func() {
		cred, err := f.s.admin.WorkerCreate(ctx, "finisher", nil, workerproto.MaxCapacity)
		if err != nil {
			f.err = err
			return
		}
		id, err := f.s.runtime.AuthenticateWorker(ctx, cred)
		if err != nil {
			f.err = err
			return
		}
		reply, err := f.s.runtime.RegisterWorker(ctx, id, workerproto.RegisterRequest{Capacity: 1, Version: "test"}, testSettings)
		f.w, f.err = worker{WorkerIdentity: id, credential: cred, session: reply.SessionID}, err
	})
	return f.w, f.err
}

// finish pulls the queued Run's attempt, starts it and ends it: succeeded
// or failed by the worker's completion, timed_out and lost by the sweep
// after the lease (and, for timed_out, the deadline) is moved into the
// past. It returns the state the store reported the call finished the Run
// in.
func (f *finisher) finish(ctx context.Context, runID string, end run.AttemptState) (run.State, error) {
	return f.finishRun(ctx, runID, end, 0, nil, nil)
}

// finishKilled is finish failed by signal, which killed the command, as
// the worker reports it.
func (f *finisher) finishKilled(ctx context.Context, runID string, signal int) (run.State, error) {
	return f.finishRun(ctx, runID, run.AttemptFailed, signal, nil, nil)
}

// finishWithOutput is finish after the worker sent output to the attempt's
// log, in pieces of at most logPiece bytes as a worker sends a long one.
func (f *finisher) finishWithOutput(ctx context.Context, runID string, end run.AttemptState, output []byte) (run.State, error) {
	return f.finishRun(ctx, runID, end, 0, output, nil)
}

// finishAfter is finish with atStart called once the worker started the
// attempt.
func (f *finisher) finishAfter(ctx context.Context, runID string, end run.AttemptState, atStart func(context.Context) error) (run.State, error) {
	return f.finishRun(ctx, runID, end, 0, nil, atStart)
}

// finishRun has a worker pull and start the attempt of runID, send output
// to its log, calls atStart (when given), then reports end as the worker
// (succeeded, failed; killed by signal when it is not 0) or the lease
// sweep (timed_out, lost) does.
func (f *finisher) finishRun(ctx context.Context, runID string, end run.AttemptState, signal int, output []byte, atStart func(context.Context) error) (run.State, error) {
	w, err := f.worker(ctx)
	if err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	req := workerproto.PullRequest{SessionID: w.session, OfferID: ids.New(), Token: base64.RawURLEncoding.EncodeToString(b), Max: 1}
	reply, err := f.s.runtime.PullGrants(ctx, w.WorkerIdentity, req, testSettings)
	if err != nil {
		return "", err
	}
	if len(reply.Grants) != 1 || reply.Grants[0].RunID != runID {
		return "", fmt.Errorf("pull granted %+v, want the attempt of run %s", reply.Grants, runID)
	}
	g := reply.Grants[0]
	f.mu.Lock()
	if f.told == nil {
		f.told = map[string]run.Identity{}
	}
	f.told[runID] = run.Identity{RunID: g.RunID, AttemptID: g.AttemptID, AttemptNumber: int64(g.AttemptNumber), Project: g.Project,
		Trigger: g.Trigger, Task: g.Task, ScheduledForMs: g.ScheduledForMs, DueAtMs: g.DueAtMs, Origin: run.Origin(g.Origin)}
	f.mu.Unlock()
	l := lease(req, g)
	if _, err := f.s.runtime.StartAttempt(ctx, w.WorkerIdentity, workerproto.StartRequest{Lease: l}, testSettings); err != nil {
		return "", err
	}
	for off := 0; off < len(output); off += logPiece {
		piece := output[off:min(off+logPiece, len(output))]
		if _, err := f.s.runtime.AppendAttemptLog(ctx, w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: int64(off), Data: piece}, testSettings); err != nil {
			return "", err
		}
	}
	if atStart != nil {
		if err := atStart(ctx); err != nil {
			return "", err
		}
	}
	var apply func(ctx context.Context) (run.State, error)
	// swept counts the attempts the sweep ended: the Run it finished, or
	// gave a retry.
	var swept int
	switch end {
	case run.AttemptSucceeded, run.AttemptFailed:
		code := int64(0)
		if end == run.AttemptFailed {
			code = 1
		}
		complete := workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeExited, ExitCode: &code}
		if signal != 0 {
			complete = workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeSignaled, ErrorCode: process.ErrorCodeSignaled, Signal: signal}
		}
		apply = func(ctx context.Context) (run.State, error) {
			done, err := f.s.runtime.CompleteAttempt(ctx, w.WorkerIdentity, complete)
			return done.Finished, err
		}
	case run.AttemptTimedOut, run.AttemptLost:
		// The sweep ends the attempt timed_out only when its deadline is
		// at or before its lease's expiry, so both are moved to one
		// reading of the clock: two readings in one statement may differ
		// by a millisecond, and the Run then ended lost. A deadline
		// already passed (PassDeadline) stays where it is; one moved here
		// passes after anything atStart did, so a cancel atStart asked
		// came before it: the wait makes that so to the millisecond.
		deadline := "a.deadline_at_ms"
		if end == run.AttemptTimedOut {
			deadline = "LEAST(a.deadline_at_ms, n.ms - 1)"
			time.Sleep(2 * time.Millisecond)
		}
		if err := f.s.tamper(ctx, `UPDATE qinglong.attempts a SET lease_expires_at_ms = n.ms - 1, deadline_at_ms = `+deadline+`
			FROM (SELECT `+ClockMsSQL+` AS ms) n WHERE a.id = $1`, l.AttemptID); err != nil {
			return "", err
		}
		apply = func(ctx context.Context) (run.State, error) {
			res, err := f.s.runtime.SweepLeases(ctx, 10)
			switch {
			case err != nil:
				return "", err
			case res.Finished.Total() > 1:
				return "", fmt.Errorf("the sweep finished %+v, more than the one Run", res.Finished)
			}
			swept = res.Lost
			for _, s := range run.FinishedStates {
				if res.Finished.Of(s) == 1 {
					return s, nil
				}
			}
			return "", nil
		}
	default:
		return "", fmt.Errorf("cannot end an attempt %s", end)
	}
	f.mu.Lock()
	if f.last == nil {
		f.last = map[string]func(context.Context) (run.State, error){}
	}
	f.last[runID] = apply
	f.mu.Unlock()
	finished, err := apply(ctx)
	if err == nil && swept == 0 && (end == run.AttemptTimedOut || end == run.AttemptLost) {
		err = fmt.Errorf("the sweep ended nothing")
	}
	return finished, err
}

// logPiece is the finisher's log request size: small, so that a test's
// output spans several chunks.
const logPiece = 1500

// finishAgain applies the last finish of runID once more: the worker's
// completion retried (its reply lost), or the sweep run again.
func (f *finisher) finishAgain(ctx context.Context, runID string) (run.State, error) {
	f.mu.Lock()
	apply := f.last[runID]
	f.mu.Unlock()
	if apply == nil {
		return "", fmt.Errorf("run %s was never finished", runID)
	}
	return apply(ctx)
}

// testSettings are the worker settings of the finisher: a lease that does
// not pass by itself within a test.
var testSettings = WorkerSettings{RunLease: testLease}
