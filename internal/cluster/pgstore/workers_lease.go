package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// leaseFacts is what LeaseFacts read, under the lock of the attempt and
// its Run, in one database instant (NowMs).
type leaseFacts struct {
	AttemptID, RunID string
	Number           int
	State            run.AttemptState
	WorkerID         *string
	TokenSHA256      *string
	LeaseVersion     *int64
	ExpiresAtMs      *int64
	DeadlineAtMs     *int64
	ResultCode       *string
	RunState         run.State
	RunVersion       int64
	CancelAtMs       *int64
	LaterAttempt     bool
	TimeoutMs        int64
	KillGraceMs      int64
	Retry            task.RetryPolicy
	NowMs            int64
	// SessionID is the session the attempt was granted under (nil once
	// released or never granted); SessionState that session's state as of
	// NowMs (workerproto's Session* states).
	SessionID, SessionState *string
}

// lockLease locks an attempt and its Run and reads its facts; an unknown
// attempt is NotFound.
func lockLease(ctx context.Context, tx querier, attemptID string) (leaseFacts, error) {
	f := leaseFacts{AttemptID: attemptID}
	var state, runState string
	err := tx.QueryRow(ctx, sqlLeaseFacts, attemptID).Scan(&f.RunID, &f.Number, &state, &f.WorkerID, &f.TokenSHA256, &f.LeaseVersion,
		&f.ExpiresAtMs, &f.DeadlineAtMs, &f.ResultCode, &runState, &f.RunVersion, &f.CancelAtMs, &f.LaterAttempt, &f.TimeoutMs,
		&f.KillGraceMs, &f.Retry.MaxAttempts, &f.Retry.BackoffMs, &f.Retry.On, &f.NowMs, &f.SessionID, &f.SessionState)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, unknownAttempt(ctx, tx, attemptID)
	}
	f.State, f.RunState = run.AttemptState(state), run.State(runState)
	return f, err
}

// inOwnedLease runs fn in one transaction on attempt attemptID's lease
// facts, locked, once they are known to belong to worker w: every step a
// worker takes on a lease starts this way.
func (r *Runtime) inOwnedLease(ctx context.Context, w WorkerIdentity, attemptID string, fn func(tx pgx.Tx, f leaseFacts) error) error {
	return inTx(ctx, r.pool, func(tx pgx.Tx) error {
		return ownedLease(ctx, tx, w, attemptID, fn)
	})
}

// inToldLease is inOwnedLease for a step whose reply tells the worker its
// session's state (a start, a renewal: leaseReply): a drain of the
// credential is first recorded on the session the attempt was granted
// under (SessionHeardDrainOfAttempt), before the attempt is locked, so
// the state the reply tells and the state the session records agree.
func (r *Runtime) inToldLease(ctx context.Context, w WorkerIdentity, attemptID string, fn func(tx pgx.Tx, f leaseFacts) error) error {
	return inTx(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlSessionHeardDrainOfAttempt, attemptID, w.ID); err != nil {
			return err
		}
		return ownedLease(ctx, tx, w, attemptID, fn)
	})
}

func ownedLease(ctx context.Context, tx pgx.Tx, w WorkerIdentity, attemptID string, fn func(tx pgx.Tx, f leaseFacts) error) error {
	f, err := lockLease(ctx, tx, attemptID)
	if err != nil {
		return err
	}
	if err := f.ownedBy(w); err != nil {
		return err
	}
	return fn(tx, f)
}

// ownedBy refuses the lease of another worker. A released grant has no
// worker any more and falls through to the token check.
func (f leaseFacts) ownedBy(w WorkerIdentity) error {
	if f.WorkerID != nil && *f.WorkerID != w.ID {
		return otherWorker("attempt", f.AttemptID)
	}
	return nil
}

func (f leaseFacts) sameToken(digest string) bool {
	return f.TokenSHA256 != nil && *f.TokenSHA256 == digest
}

// live reports a lease that has not passed in database time.
func (f leaseFacts) live() bool { return f.ExpiresAtMs != nil && *f.ExpiresAtMs > f.NowMs }

func (f leaseFacts) started() bool {
	return f.State == run.AttemptStarting || f.State == run.AttemptRunning
}

// leaseReply is the answer for a started lease as the facts stand at
// version, expiring at expiresAtMs: stop when a cancel was asked before
// the deadline passed (cancelled, run.CancelCameFirst) or the deadline passed in database time, renewed otherwise; with the
// state of the session the attempt was granted under, so a replaced or
// drained worker hears it now rather than at its next heartbeat.
func (f leaseFacts) leaseReply(version, expiresAtMs int64, deadlineAtMs *int64) workerproto.LeaseReply {
	reply := workerproto.LeaseReply{Reply: workerproto.ReplyRenewed, LeaseVersion: version, LeaseMs: msLeft(expiresAtMs, f.NowMs)}
	if f.SessionState != nil {
		reply.SessionState = *f.SessionState
	}
	if deadlineAtMs != nil {
		reply.DeadlineMs = msLeft(*deadlineAtMs, f.NowMs)
	}
	switch {
	case run.CancelCameFirst(f.CancelAtMs, deadlineAtMs):
		reply.Reply, reply.StopReason = workerproto.ReplyStop, workerproto.StopCancelled
	case deadlineAtMs != nil && *deadlineAtMs <= f.NowMs:
		reply.Reply, reply.StopReason = workerproto.ReplyStop, workerproto.StopTimedOut
	}
	return reply
}

// stopOverdue reports whether a stop the worker is told of on every
// renewal (a cancel intent, or a deadline passed) is older than one run
// lease — the time to hear it — plus the command's kill grace. A worker
// still renewing then ignores the stop, so its lease is no longer
// extended: it runs out, and the sweep ends the attempt, instead of a
// cancelled or timed-out command holding its Run for ever.
func (f leaseFacts) stopOverdue(lease time.Duration) bool {
	var since int64
	switch {
	case run.CancelCameFirst(f.CancelAtMs, f.DeadlineAtMs):
		since = *f.CancelAtMs
	case f.DeadlineAtMs != nil && *f.DeadlineAtMs <= f.NowMs:
		since = *f.DeadlineAtMs
	default:
		return false
	}
	grace := f.KillGraceMs
	if grace <= 0 {
		grace = task.DefaultKillGrace.Milliseconds()
	}
	return f.NowMs >= since+lease.Milliseconds()+grace
}

var terminalReply = workerproto.LeaseReply{Reply: workerproto.ReplyTerminal}

// Started is what StartAttempt did: the reply for the worker, and the
// state this call finished the Run in — cancelled, when the Run's cancel
// was asked before the start — or "" when it did not finish it.
type Started struct {
	workerproto.LeaseReply
	Finished run.State `json:"-"`
}

// StartAttempt acknowledges a grant just before the worker spawns it: the
// attempt goes claimed → running (through starting, in this transaction),
// its deadline is fixed at now + the command's timeout in database time,
// the lease extended, and the Run goes dispatching → running. A Run whose
// cancel was asked is cancelled here instead (reply terminal). A replay
// of an acknowledged start answers as a renewal would, changing nothing;
// a grant that expired, was released or ended is answered terminal: the
// worker must not spawn it. So is a grant of a session replaced by a newer
// one of the credential (or ended): it goes back to the queue instead, and
// the reply's session state says why.
func (r *Runtime) StartAttempt(ctx context.Context, w WorkerIdentity, req workerproto.StartRequest, s WorkerSettings) (Started, error) {
	s, err := s.withDefaults()
	if err != nil {
		return Started{}, err
	}
	digest, err := validateLease(req.Lease)
	if err != nil {
		return Started{}, err
	}
	var reply workerproto.LeaseReply
	released := false
	var finished run.State
	err = r.inToldLease(ctx, w, req.AttemptID, func(tx pgx.Tx, f leaseFacts) error {
		reply, released, finished = terminalReply, false, ""
		switch {
		case !f.sameToken(digest) || !f.live():
			return nil
		case *f.LeaseVersion != req.LeaseVersion:
			return leaseVersionRefused(req.AttemptID, req.LeaseVersion, *f.LeaseVersion)
		case f.started():
			reply = f.leaseReply(*f.LeaseVersion, *f.ExpiresAtMs, f.DeadlineAtMs)
			return nil
		case f.State != run.AttemptClaimed:
			return nil
		case f.CancelAtMs != nil || f.RunState.Terminal():
			fresh, err := cancelUnstarted(ctx, tx, f, w)
			if fresh {
				finished = run.Cancelled
			}
			return err
		case f.sessionOver():
			// Its process was replaced, or ended the session: the grant
			// goes back to the queue instead (as their release at that
			// moment would have done), and the worker hears why.
			reply.SessionState = *f.SessionState
			why := ReleasedSessionEnded
			if *f.SessionState == workerproto.SessionReplaced {
				why = ReleasedSessionReplaced
			}
			var err error
			released, err = releaseUnstarted(ctx, tx, f, w, map[string]any{"reason": why, "session": *f.SessionID})
			return err
		}
		var deadline *int64
		if f.TimeoutMs > 0 {
			at := f.NowMs + f.TimeoutMs
			deadline = &at
		}
		if err := expectOne(execNamed(ctx, tx, sqlAttemptStart, attemptStartParams, pgx.StrictNamedArgs{
			"attempt_id": f.AttemptID, "lease_version": *f.LeaseVersion, "now_ms": f.NowMs,
			"deadline_at_ms": deadline, "lease_ms": s.RunLease.Milliseconds(),
		})); err != nil {
			return err
		}
		if _, err := advanceRun(ctx, tx, f, run.Running, runChange{event: run.EventRunning, payload: attemptPayload(f, w)}); err != nil {
			return err
		}
		reply = f.leaseReply(*f.LeaseVersion, f.NowMs+s.RunLease.Milliseconds(), deadline)
		return nil
	})
	if err != nil {
		return Started{}, mapErr(err, "starting attempt "+req.AttemptID)
	}
	r.wakeWorkers(ctx, released)
	return Started{LeaseReply: reply, Finished: finished}, nil
}

// sessionOver reports a grant whose session is replaced or ended: no
// process of that session may start it any more.
func (f leaseFacts) sessionOver() bool {
	return f.SessionID != nil && f.SessionState != nil &&
		(*f.SessionState == workerproto.SessionReplaced || *f.SessionState == workerproto.SessionEnded)
}

// cancelUnstarted ends a granted, unstarted attempt cancelled, and its Run
// too unless it already ended; finished reports that it finished the Run.
func cancelUnstarted(ctx context.Context, tx pgx.Tx, f leaseFacts, w WorkerIdentity) (finished bool, err error) {
	if err := endAttempt(ctx, tx, f, run.AttemptCancelled, attemptResult{errorCode: ErrorCodeCancelled}); err != nil {
		return false, err
	}
	if f.RunState.Terminal() {
		return false, nil
	}
	return advanceRun(ctx, tx, f, run.Cancelled, runChange{event: run.EventCancelled, cancel: true, finished: true, payload: attemptPayload(f, w)})
}

// RenewAttempt extends a started lease: version v → v + 1 and the expiry
// to now + RunLease in database time. A replay of v once the lease is at
// v + 1 gets the same answer. The reply is stop when a cancel was asked
// (cancelled) or the deadline passed (timed_out), the lease extended all
// the same so the worker can still log and complete; terminal when the
// attempt is no longer running under this lease, or the lease passed in
// database time (even before any sweep saw it).
func (r *Runtime) RenewAttempt(ctx context.Context, w WorkerIdentity, req workerproto.RenewRequest, s WorkerSettings) (workerproto.LeaseReply, error) {
	s, err := s.withDefaults()
	if err != nil {
		return workerproto.LeaseReply{}, err
	}
	digest, err := validateLease(req.Lease)
	if err != nil {
		return workerproto.LeaseReply{}, err
	}
	var reply workerproto.LeaseReply
	err = r.inToldLease(ctx, w, req.AttemptID, func(tx pgx.Tx, f leaseFacts) error {
		reply = terminalReply
		switch {
		case !f.sameToken(digest) || !f.started() || !f.live():
			return nil
		case *f.LeaseVersion == req.LeaseVersion+1:
			reply = f.leaseReply(*f.LeaseVersion, *f.ExpiresAtMs, f.DeadlineAtMs)
			return nil
		case *f.LeaseVersion != req.LeaseVersion:
			return leaseVersionRefused(req.AttemptID, req.LeaseVersion, *f.LeaseVersion)
		case f.stopOverdue(s.RunLease):
			// The stop is repeated, but the lease is left to run out.
			reply = f.leaseReply(*f.LeaseVersion, *f.ExpiresAtMs, f.DeadlineAtMs)
			return nil
		}
		if err := expectOne(execNamed(ctx, tx, sqlAttemptRenew, attemptRenewParams, pgx.StrictNamedArgs{
			"attempt_id": f.AttemptID, "lease_version": *f.LeaseVersion, "now_ms": f.NowMs, "lease_ms": s.RunLease.Milliseconds(),
		})); err != nil {
			return err
		}
		reply = f.leaseReply(*f.LeaseVersion+1, f.NowMs+s.RunLease.Milliseconds(), f.DeadlineAtMs)
		return nil
	})
	if err != nil {
		r.markRolledBack(ctx, err, req.AttemptID, digest, req.LeaseVersion)
		return workerproto.LeaseReply{}, mapErr(err, "renewing attempt "+req.AttemptID)
	}
	return reply, nil
}

// Completion field limits (the attempts table's).
const (
	maxErrorCodeLen    = 64
	maxErrorMessageLen = 1024
)

// attemptResult is what an ended attempt records besides its state.
type attemptResult struct {
	exitCode     *int64
	resultCode   string
	errorCode    string
	errorMessage string
	// signal killed a signaled command; it is in the message and the
	// Run's end event, not a column of its own.
	signal int
	// endedAtMs is when the command ended, the attempt's finish time, and
	// runAtMs the time its Run's change and event are stamped with (a
	// retry's backoff runs from it); 0 is the database time of the step.
	// Only a completion a worker reports late sets them (endedAt).
	endedAtMs, runAtMs int64
}

// endedAs gives a result the error code of the end the replica decided:
// a command that exited on its own just after its deadline passed, or
// after a cancel, ends timed_out (cancelled) and says so with the code
// the worker gives when it stops the command itself, not with its exit's.
func (res attemptResult) endedAs(end run.AttemptState) attemptResult {
	switch end {
	case run.AttemptTimedOut:
		res.errorCode = workerproto.StopTimedOut
	case run.AttemptCancelled:
		res.errorCode = workerproto.StopCancelled
	}
	return res
}

func validateCompletion(req workerproto.CompleteRequest) (attemptResult, error) {
	res := attemptResult{resultCode: req.Outcome, errorCode: req.ErrorCode, exitCode: req.ExitCode}
	switch req.Outcome {
	case workerproto.OutcomeExited:
		if req.ExitCode == nil || *req.ExitCode < -(1<<31) || *req.ExitCode >= 1<<31 {
			return res, qlerror.New(qlerror.Invalid, "an exited command needs its exit code (a 32-bit integer)")
		}
	case workerproto.OutcomeSignaled, workerproto.OutcomeSpawnFailed, workerproto.OutcomeStopped:
		res.exitCode = nil
	default:
		return res, qlerror.New(qlerror.Invalid, "outcome %q is not one of %s, %s, %s, %s", req.Outcome,
			workerproto.OutcomeExited, workerproto.OutcomeSignaled, workerproto.OutcomeSpawnFailed, workerproto.OutcomeStopped)
	}
	if len(req.ErrorCode) > maxErrorCodeLen {
		return res, qlerror.New(qlerror.Invalid, "error code has %d characters, the limit is %d", len(req.ErrorCode), maxErrorCodeLen)
	}
	if req.LogBytes < 0 {
		return res, qlerror.New(qlerror.Invalid, "log bytes %d is negative", req.LogBytes)
	}
	if req.EndedMsAgo < 0 {
		return res, qlerror.New(qlerror.Invalid, "endedMsAgo %d is negative: send how many milliseconds before the report the command ended, or leave it out", req.EndedMsAgo)
	}
	switch {
	case req.Signal < 0 || req.Signal > workerproto.MaxSignal:
		return res, qlerror.New(qlerror.Invalid, "signal %d is outside 1–%d", req.Signal, workerproto.MaxSignal)
	case req.Signal != 0 && req.Outcome != workerproto.OutcomeSignaled:
		return res, qlerror.New(qlerror.Invalid, "a signal is reported only with outcome %s, not %s", workerproto.OutcomeSignaled, req.Outcome)
	case req.Signal != 0:
		// The replica's own words, as a standalone server records them.
		res.signal, req.ErrorMessage = req.Signal, run.SignalMessage(req.Signal)
	}
	msg := strings.ToValidUTF8(req.ErrorMessage, "\uFFFD")
	if runes := []rune(msg); len(runes) > maxErrorMessageLen {
		msg = string(runes[:maxErrorMessageLen])
	}
	res.errorMessage = msg
	return res, nil
}

// attemptEnd decides how a completed attempt whose command ended at
// endedAtMs (endedAt) ended: a cancel asked before the deadline passed and
// no later than the command ended wins (run.CancelDecidesResult: one asked
// after the command ended, its report still on its way, had nothing to
// cancel), then a deadline passed in database time by the command's end
// (also when a cancel was asked after it) or the worker's stop of the
// command for its timeout (the worker's copy of the deadline passes no
// later than the database's, so a command it stopped may end just before
// the database's), then a worker that stopped before its command ended
// (lost, as a dead worker's attempt is), then the exit code. A command
// that ended before its deadline keeps its own end however late its
// worker could report it.
func (f leaseFacts) attemptEnd(req workerproto.CompleteRequest, endedAtMs int64) run.AttemptState {
	stoppedForTimeout := req.Outcome == workerproto.OutcomeStopped && req.ErrorCode == workerproto.StopTimedOut
	switch {
	case run.CancelDecidesResult(f.CancelAtMs, f.DeadlineAtMs, endedAtMs):
		return run.AttemptCancelled
	case f.DeadlineAtMs != nil && (*f.DeadlineAtMs <= endedAtMs || stoppedForTimeout):
		return run.AttemptTimedOut
	case req.Outcome == workerproto.OutcomeStopped && req.ErrorCode == workerproto.StopWorkerShutdown:
		return run.AttemptLost
	case req.Outcome == workerproto.OutcomeExited && *req.ExitCode == 0:
		return run.AttemptSucceeded
	}
	return run.AttemptFailed
}

// Completed is what CompleteAttempt did: the reply for the worker; whether
// the call replayed a completion accepted before (Replayed: it changed
// nothing, the reply repeats the first one's); the state this call
// finished the Run in, "" when it did not finish it — a retry follows, or
// the call replayed (run.Finishes); and, with Finished, the Run and how
// the attempt that finished it ended, for the line the replica logs
// (run.FinishedAttrs).
type Completed struct {
	workerproto.CompleteReply
	Replayed bool         `json:"-"`
	Finished run.State    `json:"-"`
	Run      run.Identity `json:"-"`
	Attempt  run.Attempt  `json:"-"`
}

// CompleteAttempt records the end of a started attempt, fenced by the
// lease holder (attempt, worker, token digest; see completionFence), a running state and a lease not
// passed in database time: a completion after the lease passed is refused
// (Conflict) and changes nothing. The attempt's end is decided by
// attemptEnd; then the retry policy either creates Attempt N + 1 after the
// backoff (Run retry_wait) or the Run takes the attempt's end. A replay of
// an accepted completion gets the same reply, marked Replayed.
func (r *Runtime) CompleteAttempt(ctx context.Context, w WorkerIdentity, req workerproto.CompleteRequest) (Completed, error) {
	digest, err := validateLease(req.Lease)
	if err != nil {
		return Completed{}, err
	}
	result, err := validateCompletion(req)
	if err != nil {
		return Completed{}, err
	}
	var out Completed
	err = r.inOwnedLease(ctx, w, req.AttemptID, func(tx pgx.Tx, f leaseFacts) error {
		out = Completed{}
		if err := f.completionFence(req, digest); err != nil {
			return err
		}
		if f.State.Terminal() {
			out.Replayed = true
			out.CompleteReply = workerproto.CompleteReply{AttemptState: string(f.State), RunState: string(f.RunState)}
			if f.LaterAttempt {
				out.RunState = string(run.RetryWait)
			}
			return nil
		}
		endedAtMs, runAtMs, err := f.endedAt(ctx, tx, req.EndedMsAgo)
		if err != nil {
			return err
		}
		end := f.attemptEnd(req, endedAtMs)
		result := result.endedAs(end)
		result.endedAtMs, result.runAtMs = endedAtMs, runAtMs
		if err := endAttempt(ctx, tx, f, end, result); err != nil {
			return err
		}
		runState, fresh, err := settleRun(ctx, tx, f, end, result, w)
		out.CompleteReply = workerproto.CompleteReply{AttemptState: string(end), RunState: string(runState)}
		if err != nil || !fresh {
			return err
		}
		out.Finished = runState
		out.Run, out.Attempt, err = f.finishedRun(ctx, tx, end, result)
		return err
	})
	if err != nil {
		r.markRolledBack(ctx, err, req.AttemptID, digest, req.LeaseVersion)
		return Completed{}, mapErr(err, "completing attempt "+req.AttemptID)
	}
	return out, nil
}

// finishedRun names the Run a completion finished and says how its
// attempt ended, as the replica's run.finished line gives them.
func (f leaseFacts) finishedRun(ctx context.Context, tx pgx.Tx, end run.AttemptState, res attemptResult) (run.Identity, run.Attempt, error) {
	id := run.Identity{RunID: f.RunID, AttemptID: f.AttemptID, AttemptNumber: int64(f.Number)}
	a := run.Attempt{ID: f.AttemptID, RunID: f.RunID, Number: int64(f.Number), State: end, ExitCode: res.exitCode, ErrorCode: res.errorCode}
	if err := tx.QueryRow(ctx, sqlFinishedRunNames, f.AttemptID).Scan(&id.Project, &id.Task, &id.Trigger, &a.StartedAtMs); err != nil {
		return run.Identity{}, run.Attempt{}, err
	}
	ended := cmp.Or(res.endedAtMs, f.NowMs)
	a.FinishedAtMs = &ended
	return id, a, nil
}

// endedAt is when a completed attempt's command ended, endedMsAgo before
// the database time of this step as its worker counted it when it sent the
// report, held between the attempt's start and now: a worker's count, even
// a wrong one, never moves a time outside what the database knows. runAtMs
// is that end, or the Run's latest event when that came later (a cancel
// asked meanwhile), so the Run's events stay in time order. A report
// without it (a worker older than the field, a command that just ended)
// ends now, as every report did before.
func (f leaseFacts) endedAt(ctx context.Context, tx pgx.Tx, endedMsAgo int64) (endedAtMs, runAtMs int64, err error) {
	if endedMsAgo == 0 {
		return f.NowMs, f.NowMs, nil
	}
	var startedAtMs *int64
	var lastEventAtMs int64
	if err := tx.QueryRow(ctx, sqlCompletionBounds, f.AttemptID).Scan(&startedAtMs, &lastEventAtMs); err != nil {
		return 0, 0, err
	}
	endedAtMs = f.NowMs - min(endedMsAgo, f.NowMs)
	if startedAtMs != nil {
		endedAtMs = max(endedAtMs, *startedAtMs)
	}
	endedAtMs = min(endedAtMs, f.NowMs)
	return endedAtMs, min(max(endedAtMs, lastEventAtMs), f.NowMs), nil
}

// completionFence refuses a completion that does not name the live,
// started lease of its holder, unless it replays the accepted one (same
// token, the attempt ended by a completion). Its version may be older than
// the lease's, as a log chunk's may: the holder's own renewal crossed it.
func (f leaseFacts) completionFence(req workerproto.CompleteRequest, digest string) error {
	switch {
	case !f.sameToken(digest):
		return fenced("attempt %s is not leased under this token (released, or granted again); report nothing more for it", f.AttemptID)
	case req.LeaseVersion > *f.LeaseVersion:
		return leaseVersionRefused(f.AttemptID, req.LeaseVersion, *f.LeaseVersion)
	case f.State.Terminal() && f.ResultCode != nil:
		return nil
	case f.State.Terminal():
		return fenced("attempt %s already ended %s without this completion (its lease expired or it was cancelled); the completion is refused", f.AttemptID, f.State)
	case !f.started():
		return fenced("attempt %s was never started; acknowledge the start before completing it", f.AttemptID)
	case !f.live():
		return fenced("the lease of attempt %s expired %d ms ago in database time; the completion is refused and the attempt is treated as lost", f.AttemptID, f.NowMs-*f.ExpiresAtMs)
	}
	return nil
}

// endAttempt writes an attempt's end, fenced by the state read under the
// lock.
func endAttempt(ctx context.Context, tx querier, f leaseFacts, end run.AttemptState, res attemptResult) error {
	if err := run.CheckAttemptTransition(f.State, end); err != nil {
		return err
	}
	return expectOne(execNamed(ctx, tx, sqlAttemptEnd, attemptEndParams, pgx.StrictNamedArgs{
		"attempt_id": f.AttemptID, "from_state": string(f.State), "state": string(end), "now_ms": f.NowMs,
		"ended_at_ms": cmp.Or(res.endedAtMs, f.NowMs), "exit_code": res.exitCode, "result_code": nullable(res.resultCode), "error_code": nullable(res.errorCode),
		"error_message": nullable(res.errorMessage),
	}))
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// runEnds maps an attempt's end to the end of its Run when no retry
// follows, with the Run's event.
var runEnds = map[run.AttemptState]struct {
	state run.State
	event string
}{
	run.AttemptSucceeded: {run.Succeeded, run.EventSucceeded},
	run.AttemptFailed:    {run.Failed, run.EventFailed},
	run.AttemptTimedOut:  {run.TimedOut, run.EventTimedOut},
	run.AttemptCancelled: {run.Cancelled, run.EventCancelled},
	run.AttemptLost:      {run.Lost, run.EventLost},
}

// settleRun moves the Run after its attempt ended with end: to retry_wait
// with Attempt N + 1 available after the backoff when the retry policy
// allows it (never after a cancel, even one asked once the deadline had
// passed, whose attempt ends timed_out), else to the attempt's end. It returns the Run's new state, and whether the change
// finished the Run (run.Finishes). The event carries how the attempt
// ended (run.EndPayload), as a standalone server's does.
func settleRun(ctx context.Context, tx pgx.Tx, f leaseFacts, end run.AttemptState, res attemptResult, w WorkerIdentity) (_ run.State, finished bool, _ error) {
	payload := attemptPayload(f, w)
	payload["outcome"] = string(end)
	run.EndPayload(payload, run.Attempt{ExitCode: res.exitCode, ErrorCode: res.errorCode, Signal: res.signal})
	errorCode := res.errorCode
	at := cmp.Or(res.runAtMs, f.NowMs)
	if f.retries(end) {
		next := ids.New()
		if _, err := execNamed(ctx, tx, sqlAttemptRetryInsert, attemptRetryInsertParams, pgx.StrictNamedArgs{
			"id": next, "run_id": f.RunID, "number": f.Number + 1, "available_at_ms": at + f.Retry.BackoffMs, "now_ms": f.NowMs,
		}); err != nil {
			return "", false, err
		}
		payload["nextAttemptId"], payload["nextAttempt"], payload["availableAtMs"] = next, f.Number+1, at+f.Retry.BackoffMs
		finished, err := advanceRun(ctx, tx, f, run.RetryWait, runChange{event: run.EventRetryWait, payload: payload, atMs: at})
		return run.RetryWait, finished, err
	}
	e := runEnds[end]
	finished, err := advanceRun(ctx, tx, f, e.state, runChange{event: e.event, finished: true, cancel: end == run.AttemptCancelled, payload: payload, errorCode: errorCode, signal: res.signal, atMs: at})
	return e.state, finished, err
}

// retries reports whether an attempt that ended with end gets another:
// never after a cancel, else as the retry policy allows.
func (f leaseFacts) retries(end run.AttemptState) bool {
	return f.CancelAtMs == nil && end != run.AttemptCancelled && f.Retry.Allows(string(end), f.Number)
}

// runChange is one Run state change's event and stamps.
type runChange struct {
	event            string
	payload          map[string]any
	cancel, finished bool
	// errorCode and signal (0: none killed it) are the ended attempt's,
	// for the Run's notifications.
	errorCode string
	signal    int
	// atMs stamps the change and its event; 0 is the step's database time.
	atMs int64
}

// advanceRun writes one Run state change (state, version + 1, the next
// event), checked against the Run's transitions and fenced by the version
// read under the lock. Staying in the same state is allowed only for a
// recorded intent (a cancel asked of a running Run). finished reports that
// the change finished the Run (run.Finishes): the only change counted as
// its finish, since the version fence lets exactly one writer make it; a
// lost Run closed cancelled had finished before.
func advanceRun(ctx context.Context, tx querier, f leaseFacts, to run.State, c runChange) (finished bool, err error) {
	if to != f.RunState {
		if err := run.CheckTransition(f.RunState, to); err != nil {
			return false, err
		}
	}
	payload, err := json.Marshal(c.payload)
	if err != nil {
		return false, err
	}
	if err := expectOne(execNamed(ctx, tx, sqlRunAdvance, runAdvanceParams, pgx.StrictNamedArgs{
		"run_id": f.RunID, "version": f.RunVersion, "state": string(to), "now_ms": f.NowMs, "at_ms": cmp.Or(c.atMs, f.NowMs),
		"cancel": c.cancel, "finished": c.finished, "event": c.event, "payload": payload,
	})); err != nil {
		return false, err
	}
	if !c.finished {
		return false, nil
	}
	return run.Finishes(f.RunState, to), enqueueNotifications(ctx, tx, f.RunID, to, c.errorCode, c.signal)
}

// attemptPayload is the event payload naming the attempt (and the
// worker, when one acts).
func attemptPayload(f leaseFacts, w WorkerIdentity) map[string]any {
	p := map[string]any{"attemptId": f.AttemptID, "attempt": f.Number}
	if w.Name != "" {
		p["worker"] = w.Name
	}
	return p
}
