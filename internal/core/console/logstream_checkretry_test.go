package console

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http"
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
	runs := &endingRun{roundsOfRun: roundsOfRun{round: make(chan struct{}, 1)}}
	runs.answers.Store(1 << 40)
	logs := &syncbuf.Buffer{}
	site.serve(Config{Runs: runs, Log: slog.New(slog.NewJSONHandler(logs, nil)),
		ReadLog: func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) { return 0, false, nil }})
	cookie := site.signIn(t)
	if site.getWith(t.Context(), cookie, "/account").Code != http.StatusOK {
		t.Fatal("no session to follow a live log with")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- site.getWith(ctx, cookie, "/runs/r1/log?lang=en") }()
	runs.await(t, 1)

	// Another process takes the write lock; the next check, due a minute
	// of the store's clock on, reads the session but cannot record its use.
	db, err := sql.Open("sqlite", site.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	storeMs.Add(websession.SeenEvery.Milliseconds())
	failedBy := time.Now().Add(roundsLimit)
	for !strings.Contains(logs.String(), `"code":"`+CodeSessionCheckFailed+`"`) {
		if time.Now().After(failedBy) {
			t.Fatalf("no failed session check was logged within %s of the lock being taken, over %d reads of the Run:\n%s", roundsLimit, runs.reads.Load(), logs.String())
		}
		runs.await(t, runs.reads.Load()+1)
	}
	if _, err := lock.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
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
