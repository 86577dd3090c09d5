package pgstore

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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
	t := time.NewTimer(ceiling/2 + rand.N(ceiling/2+1))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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

func runSerializable(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
