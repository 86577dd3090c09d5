package console

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A live log whose session ended, by its lifetime or by going unused,
// stops while another process holds the database's write lock: the stored
// row decides, and the delete the lock refuses is only tried again at the
// next read. Before, the refused delete made the check fail, and the log
// went on sending to a session that was over until the lock was gone.
func TestALiveLogOfASessionThatEndedStopsWhileAnotherProcessHoldsTheDatabase(t *testing.T) {
	for _, tc := range []struct {
		name string
		by   time.Duration
	}{
		{"expired", DefaultSessionTTL},
		{"idle", DefaultSessionIdle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := newSessionSite(t)
			runs := newEndingRun()
			site.serve(Config{Runs: runs,
				ReadLog: func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) { return 0, false, nil }})
			_, done := site.followLog(t, runs)
			lock := site.holdWriteLock(t)
			site.nowMs.Add(tc.by.Milliseconds())
			var w *httptest.ResponseRecorder
			select {
			case w = <-done:
			case <-time.After(roundsLimit):
				t.Fatalf("the live log of a session %s went on for %s, over %d reads of the Run, while another process held the database", tc.name, roundsLimit, runs.reads.Load())
			}
			if !strings.Contains(w.Body.String(), "event: stopped\n") {
				t.Fatalf("the live log of a session %s ended without saying it stopped:\n%s", tc.name, w.Body)
			}
			var n int
			if err := lock.QueryRowContext(t.Context(), "SELECT count(*) FROM console_sessions").Scan(&n); err != nil || n != 1 {
				t.Fatalf("with the database held, %d session rows (%v), want the one that ended still stored: the lock did not refuse its delete", n, err)
			}
			release(t, lock)
		})
	}
}
