package faults

import (
	"context"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// TestProxyHoldsAClientMidTransactionUntilReleased: a held client is frozen
// exactly before the armed statement — the server shows its session idle in
// the open transaction and never receives the statement — and a release
// lets the session go on as if nothing happened. Closing the proxy frees a
// connection still held.
func TestProxyHoldsAClientMidTransactionUntilReleased(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	p, url := startProxy(t, db)
	direct := connect(t, db.URL)
	mustExec(t, direct, "CREATE TABLE t (v int)")

	c := connect(t, url)
	pid := int64(c.PgConn().PID())
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	hold := p.ArmHold("INSERT INTO t VALUES ($1)")
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		_, err := c.Exec(ctx, "INSERT INTO t VALUES ($1)", 2)
		done <- err
	}()
	select {
	case <-hold.Held():
	case <-time.After(stepTimeout):
		t.Fatal("the proxy never held the armed statement")
	}
	// The session stays idle in its transaction while held.
	for range 3 {
		time.Sleep(50 * time.Millisecond)
		if n := count(t, direct, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'idle in transaction'`, pid); n != 1 {
			t.Fatalf("held session %d is not idle in transaction", pid)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the held statement returned (%v) before the release", err)
	default:
	}
	hold.Release()
	if err := <-done; err != nil {
		t.Fatalf("the released statement failed: %v", err)
	}
	mustExec(t, c, "COMMIT")
	if n := count(t, direct, "SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("rows after the release = %d, want 2", n)
	}

	// A connection held when the proxy closes does not keep Close waiting.
	again := connect(t, url)
	hold = p.ArmHold("SELECT 1")
	ended := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		_, err := again.Exec(ctx, "SELECT 1")
		ended <- err
	}()
	<-hold.Held()
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(stepTimeout):
		t.Fatal("Close waited for a held connection")
	}
	if err := <-ended; err == nil {
		t.Fatal("the statement held when the proxy closed succeeded; want its connection cut")
	}
}
