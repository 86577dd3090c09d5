package pgstore

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// maxCredentialLen bounds what is hashed for a lookup; a real credential
// is the prefix and 43 base64url characters.
const maxCredentialLen = 256

// errUnauthenticated is the one answer for a missing, unknown or revoked
// credential: it never says which, so a guesser learns nothing.
func errUnauthenticated() *qlerror.Error {
	return qlerror.New(qlerror.Unauthenticated, "the worker credential is unknown, revoked or replaced; ask an admin for a new one (`ql workers rotate NAME`; for a revoked worker `ql workers create` under another name)")
}

// RefusalWorkerRevoked is the reason of a refused credential that was
// revoked, and RefusalWorkerReplaced of one a rotation replaced whose time
// passed, as opposed to one nobody holds: an operator's action, where an
// unknown credential may be a guess. The worker is told the same words
// either way (its credential is no use in both cases, and a guesser learns
// nothing); the ingress counts them apart, and logs them with the
// worker's name (param "worker").
const (
	RefusalWorkerRevoked  qlerror.Reason = "worker_credential_revoked"
	RefusalWorkerReplaced qlerror.Reason = "worker_credential_replaced"
)

// AuthenticateWorker returns the worker a credential belongs to, looked up
// by the credential's SHA-256: the worker's current credential, or the one
// a rotation replaced while its time lasts. A revoked credential, and a
// replaced one whose time passed, is refused on the very next request:
// the ingress authenticates every request. The ingress counts both as revoked, an
// operator's doing.
func (r *Runtime) AuthenticateWorker(ctx context.Context, credential string) (WorkerIdentity, error) {
	if !strings.HasPrefix(credential, workerproto.CredentialPrefix) || len(credential) > maxCredentialLen {
		return WorkerIdentity{}, errUnauthenticated()
	}
	var w WorkerIdentity
	var state string
	var valid bool
	err := r.pool.QueryRow(ctx, sqlWorkerAuthenticate, secretDigest(credential)).Scan(&w.ID, &w.Name, &state, &valid)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return WorkerIdentity{}, errUnauthenticated()
	case err != nil:
		return WorkerIdentity{}, mapErr(err, "authenticating a worker")
	case state == workerRevoked:
		return WorkerIdentity{}, errUnauthenticated().Because(RefusalWorkerRevoked, "worker", w.Name)
	case !valid:
		return WorkerIdentity{}, errUnauthenticated().Because(RefusalWorkerReplaced, "worker", w.Name)
	}
	return w, nil
}

// Worker credential states.
const (
	workerActive   = "active"
	workerDraining = "draining"
	workerRevoked  = "revoked"
)

// sessionOpenAttempts bounds re-running a registration that lost the race
// for its generation number to a concurrent registration of the same
// worker (each round, one of the racing registrations wins).
const sessionOpenAttempts = 10

// RegisterWorker opens a session for w: effective labels are the
// credential's plus the request's (a key the request contradicts is
// Invalid), capacity is the request's capped at the credential's max
// concurrency. The new session replaces the worker's previous one in the
// same statement (generation + 1, the old one replaced; see retireReplaced
// for what follows); a draining worker's session starts draining.
func (r *Runtime) RegisterWorker(ctx context.Context, w WorkerIdentity, req workerproto.RegisterRequest, s WorkerSettings) (Registered, error) {
	s, err := s.withDefaults()
	if err != nil {
		return Registered{}, err
	}
	if req.Capacity < 1 || req.Capacity > workerproto.MaxCapacity {
		return Registered{}, qlerror.New(qlerror.Invalid, "capacity %d is outside 1–%d", req.Capacity, workerproto.MaxCapacity)
	}
	if len(req.Version) > maxVersionLen {
		return Registered{}, qlerror.New(qlerror.Invalid, "version has %d characters, the limit is %d", len(req.Version), maxVersionLen)
	}
	if err := task.CheckWorkerLabels("labels", req.Labels); err != nil {
		return Registered{}, err
	}
	reads, err := knownReads(req.Reads)
	if err != nil {
		return Registered{}, err
	}
	var name, state string
	var labels map[string]string
	var maxConcurrency int
	err = r.pool.QueryRow(ctx, sqlWorkerForRegister, w.ID).Scan(&name, &labels, &maxConcurrency, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Registered{}, errUnauthenticated()
	case err != nil:
		return Registered{}, mapErr(err, "reading worker "+w.Name)
	case state == workerRevoked:
		return Registered{}, errUnauthenticated()
	}
	effective := maps.Clone(labels)
	if effective == nil {
		effective = map[string]string{}
	}
	for k, v := range req.Labels {
		if have, ok := effective[k]; ok && have != v {
			return Registered{}, qlerror.New(qlerror.Invalid,
				"label %s=%s contradicts the credential's %s=%s; drop it from the worker's labels, or create a worker credential with the labels it should have", k, v, k, have)
		}
		effective[k] = v
	}
	capacity := min(req.Capacity, maxConcurrency)
	reply := workerproto.RegisterReply{
		WorkerName: name, Labels: effective, Capacity: capacity,
		HeartbeatMs: workerproto.HeartbeatEvery.Milliseconds(), SessionLeaseMs: workerproto.SessionLease.Milliseconds(),
		RunLeaseMs: s.RunLease.Milliseconds(), LogCapBytes: s.LogCap,
	}
	var replacedIDs []string
	var replacedLabels []map[string]string
	for attempt := 1; ; attempt++ {
		rows, err := queryNamed(ctx, r.pool, sqlSessionOpen, sessionOpenParams, pgx.StrictNamedArgs{
			"worker_id": w.ID, "id": ids.New(), "labels": effective, "capacity": capacity, "version": req.Version,
			"reads": reads, "session_lease_ms": workerproto.SessionLease.Milliseconds(),
			"run_lease_ms": s.RunLease.Milliseconds(),
		})
		if err == nil {
			_, err = pgx.ForEachRow(rows, []any{&reply.SessionID, &reply.Generation, &reply.State, &replacedIDs, &replacedLabels}, func() error { return nil })
		}
		if sqlState(err) == stateUniqueViolation {
			if attempt < sessionOpenAttempts && commitRetry.wait(ctx, attempt) == nil {
				continue
			}
			return Registered{}, qlerror.New(qlerror.Conflict, "other registrations of worker %s kept racing this one; register again", name)
		}
		if err != nil {
			return Registered{}, mapErr(err, "opening a session for worker "+name)
		}
		break
	}
	if reply.SessionID == "" {
		// Revoked between the read and the insert.
		return Registered{}, errUnauthenticated()
	}
	if len(replacedIDs) > 0 {
		r.retireReplaced(ctx, w, replacedIDs)
	}
	return Registered{RegisterReply: reply, ReplacedLabels: replacedLabels}, nil
}

// knownReads is the grant fields of reads this replica knows, each once,
// sorted: a newer worker may name fields this replica never grants, which
// gate nothing here. More than workerproto.MaxReads names is Invalid.
func knownReads(reads []string) ([]string, error) {
	if len(reads) > workerproto.MaxReads {
		return nil, qlerror.New(qlerror.Invalid, "reads names %d grant fields, the limit is %d", len(reads), workerproto.MaxReads)
	}
	out := []string{}
	for _, f := range workerproto.Reads() {
		if slices.Contains(reads, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Registered is a registration's answer to the worker and what it
// replaced, for the replica's log.
type Registered struct {
	workerproto.RegisterReply
	// ReplacedLabels are the effective labels of each session the
	// registration replaced (at most one but for a race): a second
	// process with the credential, or a restart after a crash, that runs
	// under other labels takes other Runs, which its log should say.
	ReplacedLabels []map[string]string
}

// retireReplaced acts on the sessions a registration of w just replaced:
// their grants never started go back to the queue (each Run's event says
// session_replaced; the replaced process's start of one is answered
// terminal), and the pulls waiting on every replica are woken, watches
// included, so the replaced worker's own long-poll answers replaced now
// rather than that worker hearing it at its next heartbeat or renewal —
// also when every slot of it is busy and only its watch waits. The registration stands
// whatever happens here: a failure leaves those grants to their leases,
// as before.
func (r *Runtime) retireReplaced(ctx context.Context, w WorkerIdentity, sessions []string) {
	_ = inTx(ctx, r.pool, func(tx pgx.Tx) error {
		for _, id := range sessions {
			if _, err := releaseSessionGrants(ctx, tx, w, id, ReleasedSessionReplaced); err != nil {
				return err
			}
		}
		return nil
	})
	_ = r.NotifySessionChanged(ctx) // a failed notification leaves the worker to its next heartbeat or renewal
}

// HeartbeatWorker extends a live session of w and returns its state:
// active, draining (the worker was drained: finish, then exit), or, with
// the lease not extended, replaced, expired (register again) or revoked.
// The grant fields the request reads, if it names them, replace the
// session's (the ones this replica knows, as a registration's).
// A session of another worker is PermissionDenied.
func (r *Runtime) HeartbeatWorker(ctx context.Context, w WorkerIdentity, req workerproto.HeartbeatRequest) (workerproto.HeartbeatReply, error) {
	if err := ids.Validate("session id", req.SessionID); err != nil {
		return workerproto.HeartbeatReply{}, qlerror.Wrap(qlerror.Invalid, err, "heartbeat")
	}
	if req.Running < 0 || req.Running > workerproto.MaxCapacity {
		return workerproto.HeartbeatReply{}, qlerror.New(qlerror.Invalid, "running %d is outside 0–%d", req.Running, workerproto.MaxCapacity)
	}
	// nil leaves the session's reads as they are: only a worker an older
	// replica registered without them sends them.
	var reads []string
	if req.Reads != nil {
		known, err := knownReads(req.Reads)
		if err != nil {
			return workerproto.HeartbeatReply{}, err
		}
		reads = known
	}
	var state string
	err := queryRowNamed(ctx, r.pool, sqlSessionHeartbeat, sessionHeartbeatParams, pgx.StrictNamedArgs{
		"session_id": req.SessionID, "worker_id": w.ID, "running": req.Running, "reads": reads,
		"session_lease_ms": workerproto.SessionLease.Milliseconds(),
	}).Scan(&state)
	if err == nil {
		return workerproto.HeartbeatReply{State: state, SessionLeaseMs: workerproto.SessionLease.Milliseconds(), ReadsKept: reads != nil}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return workerproto.HeartbeatReply{}, mapErr(err, "recording a heartbeat")
	}
	state, err = sessionState(ctx, r.pool, w, req.SessionID)
	if err != nil {
		return workerproto.HeartbeatReply{}, err
	}
	return workerproto.HeartbeatReply{State: state}, nil
}

// EndWorkerSession ends a live session of w whose worker stops cleanly:
// it is not counted live from now on and gets no work. A session already
// ended, replaced or expired (or of a revoked worker) is left as it is and
// its state returned; a session of another worker is PermissionDenied. In
// the same transaction, whatever the session's state, the grants of the
// session never started go back to the queue (releaseSessionGrants: each
// Run's event says session_ended), instead of when their leases pass: the
// worker ends its session only once it runs nothing, so those are grants
// it never saw (a pull reply lost as it stopped) or never got started. The
// waiting pulls of every replica are then woken.
func (r *Runtime) EndWorkerSession(ctx context.Context, w WorkerIdentity, req workerproto.EndRequest) (workerproto.EndReply, error) {
	if err := ids.Validate("session id", req.SessionID); err != nil {
		return workerproto.EndReply{}, qlerror.Wrap(qlerror.Invalid, err, "end")
	}
	var reply workerproto.EndReply
	err := inTx(ctx, r.pool, func(tx pgx.Tx) error {
		err := queryRowNamed(ctx, tx, sqlSessionEnd, sessionEndParams, pgx.StrictNamedArgs{
			"session_id": req.SessionID, "worker_id": w.ID,
		}).Scan(&reply.State)
		if errors.Is(err, pgx.ErrNoRows) {
			reply.State, err = sessionState(ctx, tx, w, req.SessionID)
		}
		if err != nil {
			return err
		}
		reply.Released, err = releaseSessionGrants(ctx, tx, w, req.SessionID, ReleasedSessionEnded)
		return err
	})
	if err != nil {
		return workerproto.EndReply{}, mapErr(err, "ending a session")
	}
	r.wakeWorkers(ctx, reply.Released > 0)
	return reply, nil
}

// sessionState reads (and, inside a transaction, locks) a session of w
// and returns its state as of now in database time, the session recorded
// draining first when its credential is drained (SessionHeardDrain).
func sessionState(ctx context.Context, q querier, w WorkerIdentity, sessionID string) (string, error) {
	return readSessionState(ctx, q, sqlSessionState, w, sessionID)
}

// watchedSessionState is sessionState without the lock (a watch's read).
func watchedSessionState(ctx context.Context, q querier, w WorkerIdentity, sessionID string) (string, error) {
	return readSessionState(ctx, q, sqlSessionStateWatched, w, sessionID)
}

func readSessionState(ctx context.Context, q querier, query string, w WorkerIdentity, sessionID string) (string, error) {
	if _, err := q.Exec(ctx, sqlSessionHeardDrain, sessionID, w.ID); err != nil {
		return "", mapErr(err, "recording that session "+sessionID+" heard its drain")
	}
	var owner, state string
	err := q.QueryRow(ctx, query, sessionID).Scan(&owner, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", qlerror.New(qlerror.NotFound, "session %s does not exist; register again", sessionID)
	case err != nil:
		return "", mapErr(err, "reading session "+sessionID)
	case owner != w.ID:
		return "", otherWorker("session", sessionID)
	}
	return state, nil
}
