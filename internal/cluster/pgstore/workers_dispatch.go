package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// PullGrants leases at most min(req.Max, the session's free slots) queued
// Runs whose placement the session's labels satisfy, oldest first, in one
// short transaction, and never waits for work (the ingress long-polls).
// A replay of the same offer id and token returns the grants made for it
// that are still unstarted and leased, never new ones; an offer id
// replayed with another token is a Conflict. A session that is not active
// (draining, replaced, expired, revoked) gets no grants and its state.
//
// Max 0 is a watch: the session's state and no grants, from one read of
// the session, neither the offer nor the queue (a worker whose every slot
// is busy keeps one waiting, so it hears at once that it was replaced); a
// draining watch also records that an active session drains (watchState).
func (r *Runtime) PullGrants(ctx context.Context, w WorkerIdentity, req workerproto.PullRequest, s WorkerSettings) (workerproto.PullReply, error) {
	s, err := s.withDefaults()
	if err != nil {
		return workerproto.PullReply{}, err
	}
	if err := ids.Validate("session id", req.SessionID); err != nil {
		return workerproto.PullReply{}, qlerror.Wrap(qlerror.Invalid, err, "pull")
	}
	if err := ids.Validate("offer id", req.OfferID); err != nil {
		return workerproto.PullReply{}, qlerror.Wrap(qlerror.Invalid, err, "pull")
	}
	if req.Max < 0 || req.Max > workerproto.MaxCapacity {
		return workerproto.PullReply{}, qlerror.New(qlerror.Invalid, "max %d is outside 0–%d (0 watches the session)", req.Max, workerproto.MaxCapacity)
	}
	digest, err := leaseTokenDigest(req.Token)
	if err != nil {
		return workerproto.PullReply{}, err
	}
	if req.Max == 0 {
		state, err := r.watchState(ctx, w, req)
		if err != nil {
			return workerproto.PullReply{}, err
		}
		return workerproto.PullReply{State: state, Grants: []workerproto.Grant{}}, nil
	}
	var reply workerproto.PullReply
	err = inTx(ctx, r.pool, func(tx pgx.Tx) error {
		reply, err = r.pullIn(ctx, tx, w, req, digest, s)
		return err
	})
	if err != nil {
		return workerproto.PullReply{}, mapErr(err, "pulling work")
	}
	return reply, nil
}

// pullIn is a pull's one transaction, tx: the session's state, then the
// offer's earlier grants or new ones.
func (r *Runtime) pullIn(ctx context.Context, tx pgx.Tx, w WorkerIdentity, req workerproto.PullRequest, digest string, s WorkerSettings) (workerproto.PullReply, error) {
	reply := workerproto.PullReply{Grants: []workerproto.Grant{}}
	var err error
	if reply.State, err = sessionState(ctx, tx, w, req.SessionID); err != nil || reply.State != workerproto.SessionActive {
		return reply, err
	}
	replayed, err := r.offerGrants(ctx, tx, w, req, digest)
	if err != nil || replayed != nil {
		reply.Grants = append(reply.Grants, replayed...)
		return reply, err
	}
	capped, err := lockCappedProjects(ctx, tx)
	if err != nil {
		return reply, err
	}
	rows, err := queryNamed(ctx, tx, sqlDispatch, dispatchParams, pgx.StrictNamedArgs{
		"session_id": req.SessionID, "worker_id": w.ID, "worker_name": w.Name, "offer_id": req.OfferID,
		"token_sha256": digest, "max": req.Max, "lease_ms": s.RunLease.Milliseconds(), "event": run.EventDispatching,
		"capped": capped,
	})
	if err != nil {
		return reply, err
	}
	grants, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (workerproto.Grant, error) {
		var g workerproto.Grant
		err := row.Scan(grantColumns(&g)...)
		return g, err
	})
	reply.Grants = append(reply.Grants, grants...)
	return reply, err
}

// lockCappedProjects takes, for the rest of tx, the lock of every project
// with a maxRunning whose Runs the grant that follows may take, and
// returns their ids: the grant takes a capped project's Runs only when it
// holds that project's lock (CappedProjectsLock says why that is exact).
func lockCappedProjects(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, sqlCappedProjectsLock)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if ids == nil {
		ids = []string{}
	}
	return ids, err
}

// watchState is the state a watch answers, from one read of the session.
// A draining watch of a session still active is its worker saying it
// drains on its own (a signal, or an error that ends it): the session
// turns draining (SessionStopping) before it is read again, so the
// replicas count it as taking no work — a queued Run's waiting reason,
// `ql workers list`, the free slots — for as long as its commands run,
// not only once it ends its session. Only that first watch writes; every
// later one finds the session draining and reads it as any watch does.
func (r *Runtime) watchState(ctx context.Context, w WorkerIdentity, req workerproto.PullRequest) (string, error) {
	state, err := watchedSessionState(ctx, r.pool, w, req.SessionID)
	if err != nil || !req.Draining || state != workerproto.SessionActive {
		return state, err
	}
	tag, err := r.pool.Exec(ctx, sqlSessionStopping, req.SessionID, w.ID)
	if err != nil {
		return "", mapErr(err, "recording that session "+req.SessionID+" drains")
	}
	if tag.RowsAffected() == 0 {
		// Replaced, expired, drained or revoked between the two
		// statements: the read below says which.
		return watchedSessionState(ctx, r.pool, w, req.SessionID)
	}
	return workerproto.SessionDraining, nil
}

// StopsAsked returns the ids of the attempts of w's session sessionID,
// starting or running, whose Run a stop was asked of (a cancel recorded
// as an intent), in one indexed read without a lock: a waiting pull or
// watch answers them when a stop-asked notice woke it, and the worker
// renews each at once, which answers stop. Attempts of another worker are
// never named, whatever session id is given.
func (r *Runtime) StopsAsked(ctx context.Context, w WorkerIdentity, sessionID string) ([]string, error) {
	if err := ids.Validate("session id", sessionID); err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "pull")
	}
	rows, err := r.pool.Query(ctx, sqlSessionStopsAsked, sessionID, w.ID)
	if err != nil {
		return nil, mapErr(err, "reading the stops asked of session "+sessionID)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, mapErr(err, "reading the stops asked of session "+sessionID)
}

// grantColumns are the scan targets of a grant row, in the column order
// both GrantsOfOffer and Dispatch return.
func grantColumns(g *workerproto.Grant) []any {
	return []any{&g.AttemptID, &g.RunID, &g.AttemptNumber, &g.Project, &g.Task, &g.LeaseVersion, &g.LeaseMs,
		&g.ExecutionID, &g.Command, &g.Digest, &g.ProjectID, &g.TaskID, &g.Trigger, &g.ScheduledForMs, &g.DueAtMs, &g.Origin, &g.ProjectEnv}
}

// offerGrants answers a replayed offer: nil when the offer id was never
// granted anything (a fresh pull), else its grants still live (possibly
// none, as a non-nil empty slice).
func (r *Runtime) offerGrants(ctx context.Context, tx pgx.Tx, w WorkerIdentity, req workerproto.PullRequest, digest string) ([]workerproto.Grant, error) {
	rows, err := queryNamed(ctx, tx, sqlGrantsOfOffer, grantsOfOfferParams, pgx.StrictNamedArgs{
		"offer_id": req.OfferID, "worker_id": w.ID, "session_id": req.SessionID, "token_sha256": digest,
	})
	if err != nil {
		return nil, err
	}
	var out []workerproto.Grant
	seen, sameToken := false, true
	var g workerproto.Grant
	var same, live bool
	_, err = pgx.ForEachRow(rows, append(grantColumns(&g), &same, &live), func() error {
		seen = true
		sameToken = sameToken && same
		if live {
			out = append(out, g)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case !seen:
		return nil, nil
	case !sameToken:
		return nil, fenced("offer %s was already answered under another token; journal a fresh offer id and token for every pull", req.OfferID)
	case out == nil:
		return []workerproto.Grant{}, nil
	}
	return out, nil
}
