package console

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newEndingRun is a Run that runs until its test ends it, counting the
// live log's rounds.
func newEndingRun() *endingRun {
	runs := &endingRun{roundsOfRun: roundsOfRun{round: make(chan struct{}, 1)}}
	runs.answers.Store(1 << 40)
	return runs
}

// followLog signs in and follows the live log of Run r1 until the answer
// comes on the returned channel or the test ends; it returns the session's
// cookie once the stream has read its Run a first time.
func (s *sessionSite) followLog(t *testing.T, runs *endingRun) (string, <-chan *httptest.ResponseRecorder) {
	t.Helper()
	cookie := s.signIn(t)
	if s.getWith(t.Context(), cookie, "/account").Code != http.StatusOK {
		t.Fatal("no session to follow a live log with")
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- s.getWith(ctx, cookie, "/runs/r1/log?lang=en") }()
	runs.await(t, 1)
	return cookie, done
}

// holdWriteLock takes the database's write lock from a connection of its
// own, as another process would, until the returned connection rolls
// back or the test ends.
func (s *sessionSite) holdWriteLock(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", s.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	lock, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Close() })
	if _, err := lock.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return lock
}

// release ends the hold holdWriteLock took.
func release(t *testing.T, lock *sql.Conn) {
	t.Helper()
	if _, err := lock.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}
