package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// WorkerInfo is one worker as `ql workers list` shows it.
type WorkerInfo struct {
	Name string
	// Labels are the credential's (`ql workers create --labels`), which
	// every session of it carries.
	Labels map[string]string
	// SessionLabels are the label set of its live session: the
	// credential's plus those the process gave (`ql-worker --labels`).
	// Placement matches these, not Labels; none without a live session.
	// A worker has at most one (SessionOpen replaces the older session in
	// the statement that opens the newer); a list, as -o json's
	// sessionLabels has always been.
	SessionLabels []map[string]string
	// SessionReads are the grant fields its live session reads
	// (workerproto.RegisterRequest.Reads; empty for a worker built before
	// them), in a list of at most one like SessionLabels; none without a
	// live session.
	SessionReads   [][]string
	MaxConcurrency int
	// State is active, draining or revoked: the credential's, or draining
	// while every live session of an active credential drains (its
	// process stops on its own, or a drain lifted by `ql workers resume`
	// still ends the process that heard it).
	State string
	// DrainedBy says whose doing a draining worker's drain is: DrainedByAdmin
	// or DrainedByWorker; empty unless State is draining.
	DrainedBy string
	// Resumed: draining by the admin, whose drain `ql workers resume`
	// lifted since (the credential is active again) while the processes
	// that heard it still finish their commands and exit; the next process
	// started with the credential takes work.
	Resumed bool
	// Sessions counts the live sessions (active or draining, lease not
	// passed): 1 while a process runs with the credential, else 0, as a
	// registration replaces the session before it. Capacity is the live
	// session's, and FreeSlots its free slots while it takes work, as the
	// worker last reported them (a draining session takes no work, so it
	// has none).
	Sessions        int
	Capacity        int
	FreeSlots       int
	LastHeartbeatMs *int64
	// HeartbeatAgeMs is how long before the read, in database time, the
	// last heartbeat was; nil with none.
	HeartbeatAgeMs *int64
	// liveHeartbeatAgeMs is the same of the newest heartbeat of a live
	// session; nil without one.
	liveHeartbeatAgeMs *int64
	CreatedAtMs        int64
}

// SilentAfter is how long a worker with a live session goes unheard
// before the listings say it is silent: two heartbeat periods, so that one
// heartbeat was missed, not merely late, while its session still lives
// (workerproto.SessionLease, 45s) and it still counts as running.
const SilentAfter = 2 * workerproto.HeartbeatEvery

// SilentFor is how long a worker with a live session has not been heard
// from (the newest heartbeat of its live sessions), once that is
// SilentAfter or more; 0 while it heartbeats, and for a worker with no
// live session, whose SESSIONS already say it runs nothing.
func (w WorkerInfo) SilentFor() time.Duration {
	if w.liveHeartbeatAgeMs == nil || *w.liveHeartbeatAgeMs < SilentAfter.Milliseconds() {
		return 0
	}
	return time.Duration(*w.liveHeartbeatAgeMs) * time.Millisecond
}

// WorkerCreate creates an active worker credential and returns it; only
// its SHA-256 is stored, so it can never be shown again.
func (a *Admin) WorkerCreate(ctx context.Context, name string, labels map[string]string, maxConcurrency int) (string, error) {
	if err := validate.Name("worker name", name); err != nil {
		return "", err
	}
	if err := task.CheckWorkerLabels("labels", labels); err != nil {
		return "", err
	}
	if maxConcurrency < 1 || maxConcurrency > workerproto.MaxCapacity {
		return "", qlerror.New(qlerror.Invalid, "max concurrency %d is outside 1–%d", maxConcurrency, workerproto.MaxCapacity)
	}
	if labels == nil {
		labels = map[string]string{}
	}
	credential, err := newWorkerCredential()
	if err != nil {
		return "", err
	}
	_, err = execNamed(ctx, a.pool, sqlWorkerInsert, workerInsertParams, pgx.StrictNamedArgs{
		"id": ids.New(), "name": name, "labels": labels, "max_concurrency": maxConcurrency,
		"credential_sha256": secretDigest(credential),
	})
	if sqlState(err) == stateUniqueViolation {
		return "", qlerror.New(qlerror.Conflict, "a worker named %q already exists; choose another name (a revoked worker keeps its name)", name)
	}
	if err != nil {
		return "", mapErr(err, "creating worker "+name)
	}
	return credential, nil
}

// MaxKeepReplaced bounds how long a rotation keeps the credential it
// replaced: long enough to restart a worker whose commands run for hours,
// short enough that a credential meant to be retired is.
const MaxKeepReplaced = 7 * 24 * time.Hour

// Rotation is what WorkerRotate did: the new credential, shown once, and
// until when, in database time, the credential it replaced stays valid.
type Rotation struct {
	Credential  string
	KeptUntilMs int64
}

// WorkerRotate gives worker name a new credential and keeps the one it
// replaces valid for keep (0: refused from the next request on), so a
// running worker can be restarted with the new one first. A revoked
// worker cannot rotate: revocation is final.
func (a *Admin) WorkerRotate(ctx context.Context, name string, keep time.Duration) (Rotation, error) {
	if keep < 0 || keep > MaxKeepReplaced {
		return Rotation{}, qlerror.New(qlerror.Invalid, "keeping the replaced credential for %v is outside 0–%v", keep, MaxKeepReplaced)
	}
	credential, err := newWorkerCredential()
	if err != nil {
		return Rotation{}, err
	}
	r := Rotation{Credential: credential}
	err = queryRowNamed(ctx, a.pool, sqlWorkerRotate, workerRotateParams, pgx.StrictNamedArgs{
		"name": name, "keep_ms": keep.Milliseconds(), "credential_sha256": secretDigest(credential),
	}).Scan(&r.KeptUntilMs)
	if errors.Is(err, pgx.ErrNoRows) {
		return Rotation{}, notRotatable(ctx, a, name)
	}
	if err != nil {
		return Rotation{}, mapErr(err, "rotating the credential of worker "+name)
	}
	return r, nil
}

// notRotatable says why worker name got no new credential: there is none
// of that name, or it is revoked.
func notRotatable(ctx context.Context, a *Admin, name string) error {
	list, err := a.WorkerList(ctx)
	if err != nil {
		return err
	}
	for _, w := range list {
		if w.Name == name {
			return qlerror.New(qlerror.FailedPrecondition, "worker %q is revoked, which is final: create a worker of another name (`ql workers create`)", name)
		}
	}
	return noSuchWorker(name)
}

// newWorkerCredential draws a credential: the prefix and 256 random bits.
func newWorkerCredential() (string, error) {
	secret := make([]byte, tokenBytes)
	if _, err := rand.Read(secret); err != nil {
		return "", qlerror.Wrap(qlerror.Internal, err, "drawing a worker credential")
	}
	return workerproto.CredentialPrefix + base64.RawURLEncoding.EncodeToString(secret), nil
}

// WorkerList returns every worker by name.
func (a *Admin) WorkerList(ctx context.Context) ([]WorkerInfo, error) {
	return listWorkers(ctx, a.pool)
}

// WorkerList returns every worker by name, for the console's workers page
// (the runtime role reads workers and their sessions).
func (s *Runtime) WorkerList(ctx context.Context) ([]WorkerInfo, error) {
	return listWorkers(ctx, s.pool)
}

// PlacementLabels are the label set a task's placement is matched
// against, in a list of one: the live session's, or, with none live, the
// credential's (a process that registers carries at least those).
func (w WorkerInfo) PlacementLabels() []map[string]string {
	if len(w.SessionLabels) > 0 {
		return w.SessionLabels
	}
	return []map[string]string{w.Labels}
}

// Reads are the grant fields the worker's live session reads
// (workerproto.ReadProjectEnv); empty, not nil, for a worker built before
// them, and nil without a live session.
func (w WorkerInfo) Reads() []string {
	if len(w.SessionReads) == 0 {
		return nil
	}
	return append([]string{}, w.SessionReads[0]...)
}

// Whose doing a worker's drain is (WorkerInfo.DrainedBy).
const (
	// DrainedByAdmin: `ql workers drain NAME`.
	DrainedByAdmin = "admin"
	// DrainedByWorker: its process stops on its own (a signal, or an
	// error that ends it) and finishes its commands first, as it said on
	// the watch it keeps while it drains.
	DrainedByWorker = "worker"
)

func listWorkers(ctx context.Context, q querier) ([]WorkerInfo, error) {
	rows, err := q.Query(ctx, sqlWorkerList)
	if err != nil {
		return nil, mapErr(err, "listing workers")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WorkerInfo, error) {
		var w WorkerInfo
		var draining, stopping int
		err := row.Scan(&w.Name, &w.Labels, &w.MaxConcurrency, &w.State, &w.CreatedAtMs, &w.Sessions, &draining, &stopping,
			&w.Capacity, &w.FreeSlots, &w.LastHeartbeatMs, &w.SessionLabels, &w.HeartbeatAgeMs, &w.liveHeartbeatAgeMs, &w.SessionReads)
		w.settleDrain(draining, stopping)
		return w, err
	})
	return out, mapErr(err, "listing workers")
}

// settleDrain sets State, DrainedBy and Resumed from the credential's
// state and whether its live session drains (draining, of Sessions), and
// whether because its worker said it stops (stopping). A drained
// credential is the admin's doing whatever its process said; an active
// one whose live session drains is shown draining: by its worker when it
// said so, else by an admin's drain its process heard (SessionHeardDrain)
// before `ql workers resume` lifted it — resumed, as it still exits.
func (w *WorkerInfo) settleDrain(draining, stopping int) {
	switch {
	case w.State == workerDraining:
		w.DrainedBy = DrainedByAdmin
	case w.State == workerActive && w.Sessions > 0 && draining == w.Sessions:
		w.State = workerDraining
		w.DrainedBy, w.Resumed = DrainedByAdmin, true
		if stopping == w.Sessions {
			w.DrainedBy, w.Resumed = DrainedByWorker, false
		}
	}
}

// Revocation is what WorkerRevoke did: when the worker was revoked (epoch
// milliseconds), and whether an earlier revocation had done it already.
type Revocation struct {
	AtMs    int64
	Already bool
}

// WorkerRevoke revokes a worker's credential: its next request is refused
// and its sessions get no more work. Revoking a revoked worker changes
// nothing and says so. Once a revocation has committed, the pulls and
// watches waiting on every replica are woken: they read the session
// again, answer revoked, and the worker stops at once instead of at its
// next renewal or heartbeat, also when every slot of it is busy and only
// its watch waits.
func (a *Admin) WorkerRevoke(ctx context.Context, name string) (Revocation, error) {
	var r Revocation
	var now bool
	err := a.pool.QueryRow(ctx, sqlWorkerRevoke, name).Scan(&r.AtMs, &now)
	if errors.Is(err, pgx.ErrNoRows) {
		return Revocation{}, noSuchWorker(name)
	}
	if err != nil {
		return Revocation{}, mapErr(err, "revoking worker "+name)
	}
	r.Already = !now
	if !r.Already {
		_ = notifySessionChanged(ctx, a.pool) // a failed notification leaves the worker to its next renewal or heartbeat
	}
	return r, nil
}

// WorkerDrain drains a worker: its sessions get no new work and are told
// to finish what runs, then exit. Draining a draining worker is a no-op; a
// revoked one cannot be drained. A drain that changed the worker wakes the
// waiting pulls and watches once it has committed, as a revocation does,
// so the worker stops pulling at once.
func (a *Admin) WorkerDrain(ctx context.Context, name string) error {
	var before string
	err := a.pool.QueryRow(ctx, sqlWorkerDrain, name).Scan(&before)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return noSuchWorker(name)
	case err != nil:
		return mapErr(err, "draining worker "+name)
	case before == workerRevoked:
		return qlerror.New(qlerror.FailedPrecondition, "worker %q is revoked: it gets no work already, there is nothing to drain", name)
	case before == workerActive:
		_ = notifySessionChanged(ctx, a.pool) // a failed notification leaves the worker to its next renewal or heartbeat
	}
	return nil
}

// WorkerResume returns a drained worker to service: a session it opens
// from now on takes work again (a worker process that exited on its drain
// is started again). A worker already active is left so.
func (a *Admin) WorkerResume(ctx context.Context, name string) error {
	var before string
	err := a.pool.QueryRow(ctx, sqlWorkerResume, name).Scan(&before)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return noSuchWorker(name)
	case err != nil:
		return mapErr(err, "resuming worker "+name)
	case before == workerRevoked:
		return qlerror.New(qlerror.FailedPrecondition, "worker %q is revoked, which is final: create a new credential with `ql workers create NAME`", name)
	}
	return nil
}

func noSuchWorker(name string) error {
	return qlerror.New(qlerror.NotFound, "worker %q does not exist; list workers with `ql workers list`", name)
}
