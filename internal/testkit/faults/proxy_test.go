package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// stepTimeout bounds each database round trip in the proxy tests.
const stepTimeout = 30 * time.Second

func startProxy(t *testing.T, db *pgtest.Database) (*Proxy, string) {
	t.Helper()
	srv := pgtest.Server(t)
	p, err := StartProxy(fmt.Sprintf("127.0.0.1:%d", srv.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing proxy: %v", err)
		}
	})
	u, err := p.URL(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	return p, u
}

func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func mustExec(t testing.TB, c *pgx.Conn, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func count(t testing.TB, c *pgx.Conn, sql string, args ...any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	var n int
	if err := c.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestProxyForwardsSessionsUnchanged(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	_, url := startProxy(t, db)
	// sslmode=prefer makes pgx send an SSLRequest first, which the proxy
	// must decline for the session to continue in plain text.
	c := connect(t, strings.Replace(url, "sslmode=disable", "sslmode=prefer", 1))
	mustExec(t, c, "CREATE TABLE t (v text)")
	// Larger than any socket or reader buffer, so framing across reads is
	// exercised in both directions.
	big := strings.Repeat("0123456789", 200_000)
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t VALUES ($1)", big); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit through an unarmed proxy: %v", err)
	}
	var got string
	if err := c.QueryRow(ctx, "SELECT v FROM t").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != big {
		t.Fatalf("value came back %d bytes long, want %d", len(got), len(big))
	}
}

// commitStyles are the ways a driver sends COMMIT: pgx's Tx.Commit uses a
// simple Query; the extended protocol is covered with the unnamed and a
// named prepared statement.
var commitStyles = []struct {
	name     string
	protocol string
	commit   func(ctx context.Context, c *pgx.Conn) error
}{
	{"simple", "simple", func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "commit")
		return err
	}},
	{"extended_unnamed", "extended", func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.PgConn().ExecParams(ctx, "COMMIT", nil, nil, nil, nil).Close()
		return err
	}},
	{"extended_named", "extended", func(ctx context.Context, c *pgx.Conn) error {
		if _, err := c.PgConn().Prepare(ctx, "fin", "COMMIT;", nil); err != nil {
			return err
		}
		_, err := c.PgConn().ExecPrepared(ctx, "fin", nil, nil, nil).Close()
		return err
	}},
}

func TestProxyLosesCommitReplyAfterServerCommitted(t *testing.T) {
	t.Parallel()
	for _, style := range commitStyles {
		t.Run(style.name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.NewDatabase(t)
			p, url := startProxy(t, db)
			direct := connect(t, db.URL)
			mustExec(t, direct, "CREATE TABLE t (v int)")

			c := connect(t, url)
			pid := c.PgConn().PID()
			mustExec(t, c, "BEGIN")
			mustExec(t, c, "INSERT INTO t VALUES (1)")
			dropped := p.ArmCommitLoss()
			ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
			defer cancel()
			err := style.commit(ctx, c)
			if err == nil {
				t.Fatal("COMMIT succeeded although its reply was to be lost")
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("COMMIT hung instead of losing its connection: %v", err)
			}
			drop := awaitDrop(t, dropped)
			t.Logf("client error: %v; drop: %+v", err, drop)
			if drop.ServerReply != "COMMIT" || drop.Protocol != style.protocol {
				t.Fatalf("drop = %+v, want server reply COMMIT over the %s protocol", drop, style.protocol)
			}
			if n := count(t, direct, "SELECT count(*) FROM t"); n != 1 {
				t.Fatalf("rows after the lost reply = %d, want 1: the server committed", n)
			}
			awaitBackendGone(t, direct, pid)

			// The arm is spent: the next COMMIT through the proxy is answered.
			again := connect(t, url)
			mustExec(t, again, "BEGIN")
			mustExec(t, again, "INSERT INTO t VALUES (2)")
			mustExec(t, again, "COMMIT")
			if n := count(t, direct, "SELECT count(*) FROM t"); n != 2 {
				t.Fatalf("rows after a normal commit = %d, want 2", n)
			}
		})
	}
}

func TestProxyReportsTheServersRealAnswer(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	p, url := startProxy(t, db)
	direct := connect(t, db.URL)
	mustExec(t, direct, "CREATE TABLE t (v int)")

	c := connect(t, url)
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	var pgErr *pgconn.PgError
	if _, err := c.Exec(ctx, "SELECT 1/0"); !errors.As(err, &pgErr) {
		t.Fatalf("division by zero: got %v, want a server error", err)
	}
	dropped := p.ArmCommitLoss()
	if _, err := c.Exec(ctx, "COMMIT"); err == nil {
		t.Fatal("COMMIT succeeded although its reply was to be lost")
	}
	// A failed transaction's COMMIT is answered ROLLBACK: the drop must say
	// what the server did, not assume success.
	if drop := awaitDrop(t, dropped); drop.ServerReply != "ROLLBACK" {
		t.Fatalf("drop = %+v, want server reply ROLLBACK", drop)
	}
	if n := count(t, direct, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("rows = %d, want 0", n)
	}
}

func awaitDrop(t testing.TB, dropped <-chan Drop) Drop {
	t.Helper()
	select {
	case d := <-dropped:
		return d
	case <-time.After(stepTimeout):
		t.Fatal("the proxy never dropped a COMMIT reply")
		return Drop{}
	}
}

// awaitBackendGone waits until the server has ended the session the proxy
// cut, proving the server side was closed too.
func awaitBackendGone(t *testing.T, direct *pgx.Conn, pid uint32) {
	t.Helper()
	waitFor(t, stepTimeout, fmt.Sprintf("backend %d to end after the proxy cut it", pid), func() bool {
		return count(t, direct, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int64(pid)) == 0
	})
}
