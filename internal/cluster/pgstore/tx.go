package pgstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/loop"
)

// retryPolicy bounds re-running a transaction that lost a serialization
// race or a deadlock; each attempt re-reads and re-verifies everything from
// scratch. Waits grow exponentially from base to ceiling, jittered so two
// transactions that just collided do not collide again in lockstep.
type retryPolicy struct {
	attempts      int
	base, ceiling time.Duration
}

// commitRetry is the scheduler's: admissions of different rows rarely
// collide (see handles.go), and a round must not stall behind one ticket.
var commitRetry = retryPolicy{attempts: 5, base: 2 * time.Millisecond, ceiling: 16 * time.Millisecond}

// publishRetry is publishing's. The catalog tables are small, so
// SERIALIZABLE's page-level predicate locks make publishes of unrelated
// projects conflict: with commitRetry, 8 concurrent applies of different
// projects failed 2 of 8. A person or a pipeline is waiting, so a couple
// of seconds of retrying is the better trade.
var publishRetry = retryPolicy{attempts: 12, base: 5 * time.Millisecond, ceiling: 400 * time.Millisecond}

// wait sleeps before retry number attempt (1 after the first failure), or
// returns ctx's error.
func (p retryPolicy) wait(ctx context.Context, attempt int) error {
	ceiling := p.ceiling
	if shift := attempt - 1; shift < 30 && p.base<<shift < ceiling {
		ceiling = p.base << shift
	}
	return loop.Sleep(ctx, ceiling/2+rand.N(ceiling/2+1))
}

// serializable runs fn in a SERIALIZABLE transaction, retrying under
// publishRetry on 40001/40P01. fn must be safe to re-run: it may only write
// through tx. It is used for publishing, where a lost COMMIT reply is
// resolved by the caller replaying the same mutation id.
func serializable(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	var err error
	for attempt := 1; attempt <= publishRetry.attempts; attempt++ {
		err = runSerializable(ctx, pool, fn)
		if !retryable(err) {
			return err
		}
		if werr := publishRetry.wait(ctx, attempt); werr != nil {
			return err
		}
	}
	return err
}

// runSerializable runs fn once. A standby refuses to begin a SERIALIZABLE
// transaction with 0A000, feature_not_supported, which a primary sends for
// other reasons too: only a server in recovery makes it not_primary.
func runSerializable(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	err := runTx(ctx, pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, fn)
	if sqlState(err) == stateFeatureNotSupported && inRecovery(ctx, pool) {
		return standbyRefusal{err}
	}
	return err
}

// standbyRefusal is a statement refused because the server is a standby.
type standbyRefusal struct{ error }

func (e standbyRefusal) Unwrap() error { return e.error }

func refusedByStandby(err error) bool {
	var sr standbyRefusal
	return errors.As(err, &sr)
}

// inRecovery asks the server whether it is a standby; an error (the
// connection went too) reads as no, leaving the refusal as it came.
func inRecovery(ctx context.Context, pool *pgxpool.Pool) bool {
	var recovering bool
	return pool.QueryRow(ctx, sqlServerInRecovery).Scan(&recovering) == nil && recovering
}

// rollbackWithin bounds the ROLLBACK sent on a context of its own.
const rollbackWithin = 5 * time.Second

// runTx runs fn in one transaction begun with opts and commits it, unless
// fn failed or the caller gave up first (a worker whose request timed out,
// a closed browser tab): then nothing is committed and the caller's error
// is returned.
//
// Why not pgx.BeginFunc: pgx closes a connection whose ROLLBACK or COMMIT
// fails, and with the caller's context already done both fail before they
// are sent. Every abandoned request then cost the pool its connection and
// the server a new backend; under overload, when requests are abandoned
// most, that churn starved the rest and worker leases expired in bulk.
// Here the caller's context is checked before COMMIT, and the ROLLBACK
// goes out on rollbackTx's bounded context, so the connection is kept
// whenever it is still sound.
func runTx(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	tx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer rollbackTx(ctx, tx)
	if err := fn(tx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// rollbackTx ends tx unless it was committed, on a context that outlives
// the caller's by at most rollbackWithin. A ROLLBACK that cannot be sent
// in that time (the socket broke) closes the connection, as it must.
func rollbackTx(ctx context.Context, tx pgx.Tx) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackWithin)
	defer cancel()
	// ErrTxClosed after a commit; on any other error pgx has closed the
	// connection, and the pool replaces it.
	_ = tx.Rollback(rctx)
}
