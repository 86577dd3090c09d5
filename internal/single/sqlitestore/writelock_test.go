package sqlitestore

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
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

// A write whose caller has a deadline (an API request, a console page)
// waits for another process's write lock until that deadline, not the busy
// timeout, and then says what it waited for: the lock, the file, how long,
// and that nothing was written (a Timeout with reason database_locked), the
// same whether the busy timeout or the deadline would have come first. The
// write of a caller without one still gives up at the busy timeout, as
// unavailable; and a lock let go while a caller still has time is taken.
func TestAWriteWithADeadlineWaitsForAnotherProcesssLockUntilItAndSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	impatient := e.impatientStore(t) // busy timeout 50 ms
	_, release := e.holdWriteLock(t)
	// save saves a project given limit (none when 0) and says how long
	// it took from before its deadline was set.
	save := func(limit time.Duration, name string) (time.Duration, error) {
		start, ctx := time.Now(), t.Context()
		if limit > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, limit)
			defer cancel()
		}
		_, err := impatient.ProjectSave(ctx, project.Project{ID: ids.New(), Name: name, Status: project.Active})
		return time.Since(start), err
	}
	waiting := func() {
		for !impatient.beginning.Load() {
			time.Sleep(time.Millisecond)
		}
	}

	for _, limit := range []time.Duration{20 * time.Millisecond, 400 * time.Millisecond} {
		took, err := save(limit, "waits")
		if took < limit || !qlerror.Is(err, qlerror.Timeout) || qlerror.ReasonOf(err) != hold.RefusalDatabaseLocked ||
			!strings.Contains(err.Error(), "another process held the write lock of the database file "+e.path) || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("a write given %s behind another process's lock: %v after %s; want it to wait its %s and say the lock held it (timeout, database_locked)", limit, err, took, limit)
		}
	}
	// Queued in this process behind a write that waits for the lock, a
	// write waits for the same lock, and says so.
	first := make(chan error, 1)
	go func() {
		_, err := save(time.Second, "first")
		first <- err
	}()
	waiting()
	if took, err := save(200*time.Millisecond, "queued"); qlerror.ReasonOf(err) != hold.RefusalDatabaseLocked || took < 200*time.Millisecond {
		t.Fatalf("a write queued behind one waiting for the lock: %v after %s; want database_locked after its 200ms", err, took)
	}
	if err := <-first; qlerror.ReasonOf(err) != hold.RefusalDatabaseLocked {
		t.Fatalf("the write ahead of it: %v; want database_locked", err)
	}

	// A store that lost its 50 ms busy timeout would wait the default's
	// 5 s: half of that apart from 50 ms, however slow the machine.
	if took, err := save(0, "impatient"); !qlerror.Is(err, qlerror.Unavailable) || took >= DefaultBusyTimeout/2 {
		t.Fatalf("a write without a deadline: %v after %s; want unavailable after the 50ms busy timeout, not the default %s", err, took, DefaultBusyTimeout)
	}

	// The lock let go 200ms into the wait, four busy timeouts in.
	released := make(chan struct{})
	go func() {
		defer close(released)
		waiting()
		time.Sleep(200 * time.Millisecond)
		release()
	}()
	_, err := save(10*time.Second, "patient")
	<-released
	if err != nil {
		t.Fatalf("a write given 10s, the lock let go 200ms into its wait: %v; want it written once the lock was free", err)
	}
	var n int
	if err := e.raw.QueryRow(`SELECT count(*) FROM projects WHERE name IN ('waits', 'first', 'queued', 'impatient', 'patient')`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d projects written (%v); want only the one saved once the lock was free", n, err)
	}
}
