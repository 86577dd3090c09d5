package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A live log left open counts as use of its session while it sends: one
// Run's output watched for longer than the idle time, with no page asked
// for, leaves the session signed in at the next page. It lengthens
// nothing: at the end of the session's lifetime the stream stops, saying
// the session ended and to sign in again.
func TestAnOpenLiveLogKeepsItsSessionInUseUntilItsLifetimeEnds(t *testing.T) {
	site := newSessionSite(t)
	storeMs := site.nowMs
	const lifetime = 2 * time.Hour
	runs := &roundsOfRun{round: make(chan struct{}, 1)}
	runs.answers.Store(1 << 40)
	site.serve(Config{SessionTTL: lifetime, Runs: runs,
		ReadLog: func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) { return 0, false, nil }})
	cookie := site.signIn(t)
	get := func(ctx context.Context, path string) *httptest.ResponseRecorder {
		return site.getWith(ctx, cookie, path)
	}
	if get(t.Context(), "/account").Code != http.StatusOK {
		t.Fatal("no session to follow a live log with")
	}
	// seen fails unless the session's last use is the store's clock once
	// the stream has checked its session on that clock: its rounds read
	// the Run after the check, so the second read after now began its
	// round after now, checked then, and recorded the use before it.
	seen := func(after time.Duration) {
		t.Helper()
		want := storeMs.Load()
		runs.await(t, runs.reads.Load()+2)
		row, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie))
		if err != nil || row.LastSeenAtMs != want {
			t.Fatalf("%v after the last page, with the live log open: the session's last use is %d (%v), want %d: the stream did not count as use", after, row.LastSeenAtMs, err, want)
		}
	}
	// The stream's own start is a use, recorded once the last one is a
	// minute old: seen then, the stream is open.
	storeMs.Add(websession.SeenEvery.Milliseconds())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- get(ctx, "/runs/r1/log?lang=en") }()
	seen(websession.SeenEvery)
	// Each step is less than the idle time but, with the steps before,
	// more than it since the last page: only the open stream's use keeps
	// the session.
	step := 40 * time.Minute
	for i := 1; i <= 2; i++ {
		storeMs.Add(step.Milliseconds())
		seen(websession.SeenEvery + time.Duration(i)*step)
	}
	if w := get(t.Context(), "/account"); w.Code != http.StatusOK {
		t.Fatalf("the next page, %v after the last one, the live log open all along: %d to %q, want the page", websession.SeenEvery+2*step, w.Code, w.Header().Get("Location"))
	}
	// Past its lifetime, the open stream ends, saying why, at its next
	// round's check.
	storeMs.Add(lifetime.Milliseconds())
	var w *httptest.ResponseRecorder
	select {
	case w = <-done:
	case <-time.After(roundsLimit):
		t.Fatal("the live log went on past its session's lifetime")
	}
	said, _ := json.Marshal(tr("en", "log.signedout"))
	if !strings.Contains(w.Body.String(), "event: stopped\ndata: "+string(said)+"\n\n") {
		t.Fatalf("the live log that outlived its session's lifetime ended without saying why:\n%s", w.Body)
	}
}

// roundsLimit bounds a wait for a live log's rounds, which follow each
// other within logMaxWait: past it the stream has stopped, and the test
// fails rather than waits on.
const roundsLimit = time.Minute

// roundsOfRun is a runningRun that counts its reads, one per round of a
// live log after the first, each checking the session first when the
// store's clock says it is time: a test waits for a round to have come
// instead of for a time to have passed.
type roundsOfRun struct {
	runningRun
	reads atomic.Int64
	// round has a value when a read came since the last wait took it.
	round chan struct{}
}

func (r *roundsOfRun) RunGet(ctx context.Context, id string) (run.Detail, error) {
	r.reads.Add(1)
	select {
	case r.round <- struct{}{}:
	default:
	}
	return r.runningRun.RunGet(ctx, id)
}

// await returns once the Run has been read n times, failing the test if
// the stream stops reading it for roundsLimit.
func (r *roundsOfRun) await(t *testing.T, n int64) {
	t.Helper()
	for r.reads.Load() < n {
		select {
		case <-r.round:
		case <-time.After(roundsLimit):
			t.Fatalf("the live log read its Run %d times in all, want %d: its rounds stopped", r.reads.Load(), n)
		}
	}
}
