package pgstore

import (
	"context"
	"regexp"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Why a grant went back to the queue before its lease passed, as the
// reason of its Run's queued event (the sweep's is
// grant_expired_unstarted).
const (
	// ReleasedSessionEnded: the worker ended its session (a clean stop)
	// holding a grant it never started.
	ReleasedSessionEnded = "session_ended"
	// ReleasedSessionReplaced: a newer session of the same credential
	// replaced the session holding the grant, before it was started.
	ReleasedSessionReplaced = "session_replaced"
	// ReleasedGivenBack: the worker gave the grant back; the event's
	// workerReason says why (a workerproto.GiveBack* reason).
	ReleasedGivenBack = "grant_given_back"
)

// giveBackReason is the shape of a worker's reason: a short snake_case
// code, so a worker newer than this replica may send one it does not know
// yet, and the event never carries free text from a worker.
var giveBackReason = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// GiveBackGrant gives back to the queue a grant w will not start, at once
// rather than when its lease passes. It is fenced like every lease step —
// the attempt's lock, w's own lease, the token digest and lease version —
// and takes effect only on a grant never started: one whose start was
// acknowledged is answered started (the worker may have spawned it; it
// completes it as usual), one released, expired or ended meanwhile gone.
// The Run goes dispatching → queued with an event naming the worker and
// its reason, and the waiting pulls of every replica are woken. A grant
// whose Run's cancel was asked is answered gone and left to the lease
// sweep, which ends it cancelled (see releaseUnstarted).
func (r *Runtime) GiveBackGrant(ctx context.Context, w WorkerIdentity, req workerproto.GiveBackRequest) (workerproto.GiveBackReply, error) {
	digest, err := validateLease(req.Lease)
	if err != nil {
		return workerproto.GiveBackReply{}, err
	}
	if !giveBackReason.MatchString(req.Reason) {
		return workerproto.GiveBackReply{}, qlerror.New(qlerror.Invalid, "reason %q is not a snake_case code of at most 64 characters (e.g. %s)", req.Reason, workerproto.GiveBackStopping)
	}
	reply := workerproto.GiveBackReply{Reply: workerproto.GiveBackGone}
	released := false
	err = r.inOwnedLease(ctx, w, req.AttemptID, func(tx pgx.Tx, f leaseFacts) error {
		reply.Reply = workerproto.GiveBackGone
		switch {
		case !f.sameToken(digest):
			return nil
		case *f.LeaseVersion != req.LeaseVersion:
			return leaseVersionRefused(req.AttemptID, req.LeaseVersion, *f.LeaseVersion)
		case f.started():
			reply.Reply = workerproto.GiveBackStarted
			return nil
		}
		var err error
		released, err = releaseUnstarted(ctx, tx, f, w, map[string]any{"reason": ReleasedGivenBack, "workerReason": req.Reason})
		if released {
			reply.Reply = workerproto.GiveBackReleased
		}
		return err
	})
	if err != nil {
		return workerproto.GiveBackReply{}, mapErr(err, "giving back attempt "+req.AttemptID)
	}
	r.wakeWorkers(ctx, released)
	return reply, nil
}

// releaseUnstarted gives back a grant never started, on facts read under
// the attempt's and its Run's lock: its lease cleared (a later start of it
// is answered terminal) and its Run dispatching → queued, one event with
// the attempt, the worker and why (payload's reason). It reports false,
// changing nothing, for an attempt that is started, ended or not leased,
// or a Run not dispatching: those are left to their completion or their
// lease. So is a Run whose cancel was asked: the lease sweep ends it
// cancelled, and the sweep's result is where a replica learns that a Run
// finished (the runs-finished count), as for a crashed worker's grant.
func releaseUnstarted(ctx context.Context, tx pgx.Tx, f leaseFacts, w WorkerIdentity, why map[string]any) (bool, error) {
	if f.State != run.AttemptClaimed || f.TokenSHA256 == nil || f.LeaseVersion == nil ||
		f.CancelAtMs != nil || f.RunState != run.Dispatching {
		return false, nil
	}
	if err := expectOne(execNamed(ctx, tx, sqlAttemptRelease, attemptReleaseParams, pgx.StrictNamedArgs{
		"attempt_id": f.AttemptID, "token_sha256": *f.TokenSHA256, "lease_version": *f.LeaseVersion, "now_ms": f.NowMs,
	})); err != nil {
		return false, err
	}
	payload := attemptPayload(f, w)
	for k, v := range why {
		payload[k] = v
	}
	if _, err := advanceRun(ctx, tx, f, run.Queued, runChange{event: run.EventQueued, payload: payload}); err != nil {
		return false, err
	}
	return true, nil
}

// releaseSessionGrants gives back, when session sessionID of w ended or
// was replaced (reason), every grant of it never started: each locked in
// turn and released only if it is still unstarted, of that session and
// under the token it was read with. A grant started meanwhile keeps its
// lease. It returns how many went back.
func releaseSessionGrants(ctx context.Context, tx pgx.Tx, w WorkerIdentity, sessionID, reason string) (int, error) {
	rows, err := tx.Query(ctx, sqlSessionUnstarted, sessionID)
	if err != nil {
		return 0, err
	}
	type grant struct{ id, token string }
	var grants []grant
	var g grant
	if _, err := pgx.ForEachRow(rows, []any{&g.id, &g.token}, func() error {
		grants = append(grants, g)
		return nil
	}); err != nil {
		return 0, err
	}
	released := 0
	for _, g := range grants {
		f, err := lockLease(ctx, tx, g.id)
		if err != nil {
			return released, err
		}
		if f.SessionID == nil || *f.SessionID != sessionID || !f.sameToken(g.token) || f.ownedBy(w) != nil {
			continue
		}
		ok, err := releaseUnstarted(ctx, tx, f, w, map[string]any{"reason": reason, "session": sessionID})
		if err != nil {
			return released, err
		}
		if ok {
			released++
		}
	}
	return released, nil
}
