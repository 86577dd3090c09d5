package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Cluster execution (docs/architecture.md, "Execution: workers and run
// leases"): workers never reach the database; the worker ingress calls
// these methods on the runtime role's pool. Every step is one short
// transaction in database time, fenced and idempotent on replay.

// WorkerIdentity is the worker a credential authenticated. Every later
// step acts for this worker only: the id never comes from a request body.
type WorkerIdentity struct{ ID, Name string }

// WorkerSettings are the ingress's execution settings.
type WorkerSettings struct {
	// RunLease is how long a grant or a started attempt lives without a
	// renewal (default DefaultRunLease).
	RunLease time.Duration
	// LogCap bounds the log bytes stored per attempt (default
	// workerproto.DefaultLogCap); beyond it a truncation marker is stored
	// and the rest dropped.
	LogCap int64
}

// Run lease bounds and default.
const (
	DefaultRunLease = 30 * time.Second
	MinRunLease     = time.Second
	MaxRunLease     = 10 * time.Minute
	// MaxLogCap bounds WorkerSettings.LogCap.
	MaxLogCap = int64(1) << 30
)

// withDefaults fills zero fields and checks the ranges.
func (s WorkerSettings) withDefaults() (WorkerSettings, error) {
	if s.RunLease == 0 {
		s.RunLease = DefaultRunLease
	}
	if s.LogCap == 0 {
		s.LogCap = workerproto.DefaultLogCap
	}
	if s.RunLease < MinRunLease || s.RunLease > MaxRunLease || s.RunLease%time.Millisecond != 0 {
		return s, qlerror.New(qlerror.Invalid, "run lease %s is outside %s–%s (whole milliseconds)", s.RunLease, MinRunLease, MaxRunLease)
	}
	if s.LogCap < 1 || s.LogCap > MaxLogCap {
		return s, qlerror.New(qlerror.Invalid, "log cap %d bytes is outside 1–%d", s.LogCap, MaxLogCap)
	}
	return s, nil
}

// maxVersionLen bounds the version a worker reports at registration.
const maxVersionLen = 64

// secretDigest is the SHA-256 (hex) of a credential or lease token: the
// only form either is ever stored in.
func secretDigest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// tokenBytes is the length of a lease token and of a credential's secret.
const tokenBytes = 32

// leaseTokenDigest checks a lease token's shape (32 random bytes,
// base64url without padding) and returns its digest.
func leaseTokenDigest(token string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != tokenBytes {
		return "", qlerror.New(qlerror.Invalid, "lease token must be %d random bytes in base64url without padding", tokenBytes)
	}
	return secretDigest(token), nil
}

// validateLease checks the fields that name a lease and returns the
// token's digest.
func validateLease(l workerproto.Lease) (string, error) {
	if err := ids.Validate("attempt id", l.AttemptID); err != nil {
		return "", qlerror.Wrap(qlerror.Invalid, err, "the lease names no valid attempt")
	}
	if l.LeaseVersion < 1 {
		return "", qlerror.New(qlerror.Invalid, "lease version %d must be at least 1", l.LeaseVersion)
	}
	return leaseTokenDigest(l.Token)
}

// inTx runs fn in one READ COMMITTED transaction and re-runs it from
// scratch after a deadlock or a serialization failure, a bounded number
// of times. fn must assign its results afresh on every run.
func inTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	var err error
	for attempt := 1; attempt <= commitRetry.attempts; attempt++ {
		err = runTx(ctx, pool, pgx.TxOptions{}, fn)
		if !retryable(err) {
			return err
		}
		if commitRetry.wait(ctx, attempt) != nil {
			return err
		}
	}
	return err
}

// execNamed runs a statement bound by namedStmt.
func execNamed(ctx context.Context, q querier, sql string, p sqlParams, named pgx.StrictNamedArgs) (pgconn.CommandTag, error) {
	args, err := p.args(named)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return q.Exec(ctx, sql, args...)
}

// queryNamed queries a statement bound by namedStmt.
func queryNamed(ctx context.Context, q querier, sql string, p sqlParams, named pgx.StrictNamedArgs) (pgx.Rows, error) {
	args, err := p.args(named)
	if err != nil {
		return nil, err
	}
	return q.Query(ctx, sql, args...)
}

// queryRowNamed queries one row of a statement bound by namedStmt.
func queryRowNamed(ctx context.Context, q querier, sql string, p sqlParams, named pgx.StrictNamedArgs) pgx.Row {
	args, err := p.args(named)
	if err != nil {
		return errRow{err}
	}
	return q.QueryRow(ctx, sql, args...)
}

// errRow is a row whose Scan reports an error found before the query.
type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }

// expectOne reports a fenced write that touched no row although the lock
// was held: impossible unless the statement and its facts disagree.
func expectOne(tag pgconn.CommandTag, err error) error {
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return qlerror.New(qlerror.Internal, "a fenced write (%s) touched %d rows under the lock, want 1", tag.String(), tag.RowsAffected())
	}
	return nil
}

// msLeft is the time left until atMs from nowMs, never negative.
func msLeft(atMs, nowMs int64) int64 {
	return max(atMs-nowMs, 0)
}

// notFoundAttempt is the error for an attempt id nobody knows.
func notFoundAttempt(id string) error {
	return qlerror.New(qlerror.NotFound, "attempt %s does not exist", id)
}

// otherWorker is the error for a session or lease of another worker.
func otherWorker(what, id string) error {
	return qlerror.New(qlerror.PermissionDenied, "%s %s belongs to another worker; a worker acts only on its own sessions and leases", what, id)
}

func fenced(format string, args ...any) error {
	return qlerror.New(qlerror.Conflict, format, args...)
}
