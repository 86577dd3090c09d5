package pgtest_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// TestPreparedDatabasesAreIndependentCopiesOfOnePreparation: prepare runs
// once per key, every database starts with what it made, a change in one
// copy is seen in no other, and the template itself refuses connections so
// no test can change what later copies start from.
func TestPreparedDatabasesAreIndependentCopiesOfOnePreparation(t *testing.T) {
	var prepared atomic.Int32
	prepare := func(ctx context.Context, url string) error {
		prepared.Add(1)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `CREATE TABLE seeded (x int); INSERT INTO seeded VALUES (1)`)
		return err
	}
	a := pgtest.NewPreparedDatabase(t, "template test", prepare)
	b := pgtest.NewPreparedDatabase(t, "template test", prepare)
	if n := prepared.Load(); n != 1 {
		t.Fatalf("prepare ran %d times for one key, want 1", n)
	}
	ctx := t.Context()
	if _, err := a.Pool(t).Exec(ctx, `INSERT INTO seeded VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		db   *pgtest.Database
		want int
	}{{a, 2}, {b, 1}} {
		var n int
		if err := tc.db.Pool(t).QueryRow(ctx, `SELECT count(*) FROM seeded`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("%s: %d rows in the seeded table, want %d", tc.db.Name, n, tc.want)
		}
	}
	conn := connect(t, pgtest.Server(t).SuperuserURL("postgres"))
	var templates int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datistemplate AND NOT datallowconn AND datname LIKE 't_template_template_test%'`).Scan(&templates); err != nil {
		t.Fatal(err)
	}
	if templates != 1 {
		t.Errorf("%d closed template databases for the key, want 1", templates)
	}
}
