package pgstore

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxSerializableAttempts bounds re-running a transaction that lost a
// serialization race or a deadlock; each attempt re-reads and re-verifies
// everything from scratch.
const maxSerializableAttempts = 5

// serializable runs fn in a SERIALIZABLE transaction, retrying a bounded
// number of times on 40001/40P01. fn must be safe to re-run: it may only
// write through tx. It is used for publishing, where a lost COMMIT reply is
// resolved by the caller replaying the same mutation id.
func serializable(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	var err error
	for attempt := 1; attempt <= maxSerializableAttempts; attempt++ {
		err = runSerializable(ctx, pool, fn)
		if !retryable(err) {
			return err
		}
		if werr := backoff(ctx, attempt); werr != nil {
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

// backoff waits a short, jittered, growing time before a retry so two
// transactions that just collided do not collide again in lockstep.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(attempt) * time.Millisecond * time.Duration(1+rand.IntN(4))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
