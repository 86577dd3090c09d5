package console

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/websession"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// lockedRounds is how many rounds a live log must make while another
// process holds the database: more than roundsLimit holds rounds that each
// wait out a request's time limit for the lock.
const lockedRounds = 2*int(roundsLimit/DefaultRequestTimeout) + 1

// A live log goes on sending its Run's output while another process holds
// the database's write lock: its session check, due at every poll while
// the use cannot be recorded, gives up on the write rather than wait for
// the lock, and the round goes on to read the Run and its output. The use
// is not taken as recorded meanwhile, and is recorded at the first poll
// after the lock is gone.
func TestALiveLogKeepsSendingWhileAnotherProcessHoldsTheDatabase(t *testing.T) {
	site := newSessionSite(t)
	storeMs := site.nowMs
	runs := newEndingRun()
	logs := &syncbuf.Buffer{}
	var pieces atomic.Int64
	site.serve(Config{Runs: runs, Log: slog.New(slog.NewJSONHandler(logs, nil)),
		ReadLog: func(_ context.Context, _ string, offset, _ int64, w io.Writer) (int64, bool, error) {
			n, err := io.WriteString(w, "a line\n")
			pieces.Add(1)
			return offset + int64(n), false, err
		}})
	firstSeen := storeMs.Load()
	cookie, done := site.followLog(t, runs)

	lock := site.holdWriteLock(t)
	// From here every poll's check is due, and fails on the lock.
	storeMs.Add(websession.SeenEvery.Milliseconds())
	by := time.Now().Add(roundsLimit)
	for !strings.Contains(logs.String(), `"code":"`+CodeSessionCheckFailed+`"`) {
		if time.Now().After(by) {
			t.Fatalf("no failed session check was logged within %s of the lock being taken, over %d reads of the Run:\n%s", roundsLimit, runs.reads.Load(), logs.String())
		}
		runs.await(t, runs.reads.Load()+1)
	}
	from, sent := runs.reads.Load(), pieces.Load()
	by = time.Now().Add(roundsLimit)
	for runs.reads.Load() < from+int64(lockedRounds) {
		if time.Now().After(by) {
			t.Fatalf("the live log made %d rounds in %s while another process held the database, want %d: each waited for the lock to record the session's use", runs.reads.Load()-from, roundsLimit, lockedRounds)
		}
		runs.await(t, runs.reads.Load()+1)
	}
	// Each round reads the output after the Run: the last one counted may
	// not have read it yet.
	if got := pieces.Load() - sent; got < int64(lockedRounds)-1 {
		t.Fatalf("the live log read its output %d times over %d rounds with the database held, want once a round", got, lockedRounds)
	}
	row, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie))
	if err != nil || row.LastSeenAtMs != firstSeen {
		t.Fatalf("with the database held, the session's last use is %d (%v), want %d: a use was recorded through the lock, so the checks did not fail on it", row.LastSeenAtMs, err, firstSeen)
	}

	release(t, lock)
	// Its rounds read the Run after the check: the second read from here
	// began after a check done with the lock released.
	runs.await(t, runs.reads.Load()+2)
	row, err = site.st.SessionByDigest(t.Context(), websession.Digest(cookie))
	if want := storeMs.Load(); err != nil || row.LastSeenAtMs != want {
		t.Fatalf("the lock released, the session's last use is %d (%v), want %d: the check was not tried again at the next poll", row.LastSeenAtMs, err, want)
	}
	runs.ended.Store(true)
	var w *httptest.ResponseRecorder
	select {
	case w = <-done:
	case <-time.After(roundsLimit):
		t.Fatal("the live log went on after its Run ended")
	}
	if !strings.Contains(w.Body.String(), "event: end\ndata: \"succeeded\"\n\n") {
		t.Fatalf("the live log of the Run that ended did not say so:\n%s", w.Body)
	}
}
