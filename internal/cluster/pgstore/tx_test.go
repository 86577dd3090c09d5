package pgstore

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A caller that gives up while its transaction is open between statements
// (a worker whose request timed out while the replica was starved of CPU)
// gets its own error, nothing of the transaction is committed, and the
// pool keeps the connection: the next transaction runs on the same backend
// and no connection was opened for it. Before, the ROLLBACK was sent on
// the caller's finished context, failed unsent, and pgx closed the
// connection, so every abandoned request cost a new backend.
func TestATransactionItsCallerGaveUpOnCommitsNothingAndKeepsItsConnection(t *testing.T) {
	db := pgtest.NewDatabase(t)
	setup := db.Pool(t)
	if _, err := setup.Exec(t.Context(), `CREATE TABLE written (step text)`); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	backend := func() int32 {
		t.Helper()
		var pid int32
		if err := pool.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	first := backend()

	cases := []struct {
		name string
		run  func(ctx context.Context, fn func(pgx.Tx) error) error
		// next runs after the caller gave up: nothing, or one more
		// statement, which fails on the finished context.
		next string
	}{
		{"ReadCommittedFnSucceeds", func(ctx context.Context, fn func(pgx.Tx) error) error { return inTx(ctx, pool, fn) }, ""},
		{"ReadCommittedFnFailsOnTheNextStatement", func(ctx context.Context, fn func(pgx.Tx) error) error { return inTx(ctx, pool, fn) }, `SELECT 1`},
		{"SerializableFnSucceeds", func(ctx context.Context, fn func(pgx.Tx) error) error { return runSerializable(ctx, pool, fn) }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, giveUp := context.WithCancel(t.Context())
			err := c.run(ctx, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `INSERT INTO written VALUES ($1)`, c.name); err != nil {
					return err
				}
				giveUp()
				if c.next != "" {
					_, err := tx.Exec(ctx, c.next)
					return err
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("the caller gave up, but the transaction returned %v, not its context's error", err)
			}
			var n int
			if err := setup.QueryRow(t.Context(), `SELECT count(*) FROM written WHERE step = $1`, c.name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%d rows of a transaction whose caller gave up were committed", n)
			}
			if pid := backend(); pid != first {
				t.Errorf("the next transaction ran on backend %d, not %d: the abandoned one cost the pool its connection", pid, first)
			}
			if opened := pool.Stat().NewConnsCount(); opened != 1 {
				t.Errorf("the pool opened %d connections, want 1", opened)
			}
		})
	}
}
