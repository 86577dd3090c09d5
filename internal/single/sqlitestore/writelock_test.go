package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
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

// heldDeadline is a caller's deadline that comes when the test says
// (expire), not on a timer. The write sees a context with a deadline
// either way; but a timer of a few milliseconds can run out on a loaded
// machine before the write has reached the lock at all, and the write then
// rightly says it never waited for it.
type heldDeadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

// newHeldDeadline is a deadline that comes at expire, or at the end of t.
func newHeldDeadline(t *testing.T) *heldDeadline {
	d := &heldDeadline{Context: t.Context(), done: make(chan struct{})}
	t.Cleanup(d.expire)
	return d
}

// Deadline says there is one; when is the test's to say, so it reports
// none the write could reach first.
func (d *heldDeadline) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }

func (d *heldDeadline) Done() <-chan struct{} { return d.done }

func (d *heldDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (d *heldDeadline) expire() { d.once.Do(func() { close(d.done) }) }

// A write whose caller has a deadline (an API request, a console page)
// waits for another process's write lock until that deadline, not the busy
// timeout, and then says what it waited for: the lock, the file, and that
// nothing was written (a Timeout with reason database_locked), the same
// whether the deadline came before the busy timeout or after several. The
// write of a caller without one still gives up at the busy timeout, as
// unavailable; and a lock let go while a caller still has time is taken.
// Each deadline comes when the write is seen waiting for the lock (or
// queued behind one that is), so no load can make it come sooner.
func TestAWriteWithADeadlineWaitsForAnotherProcesssLockUntilItAndSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	impatient := e.impatientStore(t) // busy timeout 50 ms
	busy := impatient.cfg.BusyTimeout
	_, release := e.holdWriteLock(t)
	save := func(ctx context.Context, name string) <-chan error {
		out := make(chan error, 1)
		go func() {
			_, err := impatient.ProjectSave(ctx, project.Project{ID: ids.New(), Name: name, Status: project.Active})
			out <- err
		}()
		return out
	}
	waiting := func() {
		for !impatient.beginning.Load() {
			time.Sleep(time.Millisecond)
		}
	}
	stillWaiting := func(result <-chan error, what string) {
		t.Helper()
		select {
		case err := <-result:
			t.Fatalf("%s ended before its deadline came: %v; want it to wait for the lock until then", what, err)
		default:
		}
	}
	saysLocked := func(err error) bool {
		return qlerror.Is(err, qlerror.Timeout) && qlerror.ReasonOf(err) == hold.RefusalDatabaseLocked &&
			strings.Contains(err.Error(), "another process held the write lock of the database file "+e.path) && strings.Contains(err.Error(), "nothing was written")
	}

	for _, busyTimeouts := range []time.Duration{0, 4} {
		d := newHeldDeadline(t)
		result := save(d, "waits")
		waiting()
		time.Sleep(busyTimeouts * busy)
		stillWaiting(result, fmt.Sprintf("a write behind another process's lock, %d busy timeouts in,", busyTimeouts))
		d.expire()
		if err := <-result; !saysLocked(err) {
			t.Fatalf("a write whose deadline came %d busy timeouts into its wait for another process's lock: %v; want it to say the lock held it (timeout, database_locked)", busyTimeouts, err)
		}
	}
	// Queued in this process behind a write that waits for the lock, a
	// write waits for the same lock, and says so.
	first := newHeldDeadline(t)
	firstResult := save(first, "first")
	waiting()
	queued := newHeldDeadline(t)
	queuedResult := save(queued, "queued")
	time.Sleep(4 * busy)
	stillWaiting(queuedResult, "a write queued behind one waiting for the lock")
	queued.expire()
	if err := <-queuedResult; qlerror.ReasonOf(err) != hold.RefusalDatabaseLocked {
		t.Fatalf("a write queued behind one waiting for the lock: %v; want database_locked at its deadline", err)
	}
	stillWaiting(firstResult, "the write ahead of it")
	first.expire()
	if err := <-firstResult; qlerror.ReasonOf(err) != hold.RefusalDatabaseLocked {
		t.Fatalf("the write ahead of it: %v; want database_locked", err)
	}

	// A store that lost its 50 ms busy timeout would wait the default's
	// 5 s, which no wait of 50 ms stretched by load comes near.
	start := time.Now()
	if err := <-save(t.Context(), "impatient"); !qlerror.Is(err, qlerror.Unavailable) || time.Since(start) >= DefaultBusyTimeout {
		t.Fatalf("a write without a deadline: %v after %s; want unavailable after the 50ms busy timeout, not the default %s", err, time.Since(start), DefaultBusyTimeout)
	}

	// The lock let go four busy timeouts into the wait of a write whose
	// deadline never comes.
	patient := save(newHeldDeadline(t), "patient")
	waiting()
	time.Sleep(4 * busy)
	stillWaiting(patient, "a write with time left")
	release()
	if err := <-patient; err != nil {
		t.Fatalf("a write with time left, the lock let go four busy timeouts into its wait: %v; want it written once the lock was free", err)
	}
	var n int
	if err := e.raw.QueryRow(`SELECT count(*) FROM projects WHERE name IN ('waits', 'first', 'queued', 'impatient', 'patient')`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d projects written (%v); want only the one saved once the lock was free", n, err)
	}
}
