package sqlitestore

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// impatientStore is a second store on e's file that gives up on a held
// write lock after 50 ms, as a server meeting another process's lock.
func (e *env) impatientStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs, BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// holdWriteLock takes the write lock on a connection of its own (BEGIN
// IMMEDIATE), as another process would; work the caller runs on conn
// stays uncommitted. release rolls it back.
func (e *env) holdWriteLock(t *testing.T) (conn *sql.Conn, release func()) {
	t.Helper()
	conn, err := e.raw.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		t.Fatalf("hold the write lock: %v", err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		// Not t.Context(): a release from the test's cleanup runs after
		// it has ended.
		if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
	}
	t.Cleanup(release)
	return conn, release
}
