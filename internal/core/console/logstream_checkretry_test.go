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

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/websession"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// A live log whose check of its session fails, here because another
// process holds the database's write lock so the use cannot be recorded,
// checks again at its next poll once the store answers, not a
// websession.SeenEvery of the store's clock later: with the clock stood
// still, the use is recorded as soon as the lock is released. The follow
// still ends when the Run ends.
func TestALiveLogsFailedSessionCheckIsRetriedAtTheNextPoll(t *testing.T) {
	site := newSessionSite(t)
	storeMs := site.nowMs
	runs := newEndingRun()
	logs := &syncbuf.Buffer{}
	site.serve(Config{Runs: runs, Log: slog.New(slog.NewJSONHandler(logs, nil)),
		ReadLog: func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) { return 0, false, nil }})
	cookie, done := site.followLog(t, runs)

	// Another process takes the write lock; the next check, due a minute
	// of the store's clock on, reads the session but cannot record its use.
	lock := site.holdWriteLock(t)
	storeMs.Add(websession.SeenEvery.Milliseconds())
	failedBy := time.Now().Add(roundsLimit)
	for !strings.Contains(logs.String(), `"code":"`+CodeSessionCheckFailed+`"`) {
		if time.Now().After(failedBy) {
			t.Fatalf("no failed session check was logged within %s of the lock being taken, over %d reads of the Run:\n%s", roundsLimit, runs.reads.Load(), logs.String())
		}
		runs.await(t, runs.reads.Load()+1)
	}
	release(t, lock)
	// The clock stands still: only a check at the next poll records the
	// use now. Its rounds read the Run after the check, so the second read
	// from here began after a check done with the lock released.
	runs.await(t, runs.reads.Load()+2)
	row, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie))
	if want := storeMs.Load(); err != nil || row.LastSeenAtMs != want {
		t.Fatalf("the session's last use is %d (%v), want %d: the failed check was not tried again at the next poll", row.LastSeenAtMs, err, want)
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

// endingRun is a roundsOfRun whose Run has succeeded once ended is set.
type endingRun struct {
	roundsOfRun
	ended atomic.Bool
}

func (r *endingRun) RunGet(ctx context.Context, id string) (run.Detail, error) {
	d, err := r.roundsOfRun.RunGet(ctx, id)
	if err == nil && r.ended.Load() {
		d.Run.State = run.Succeeded
		d.Attempts[0].State = run.AttemptSucceeded
	}
	return d, err
}
