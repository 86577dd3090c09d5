package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
	runs := &runningRun{}
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
	// seen waits until the session's last use is the store's clock.
	seen := func(after time.Duration) {
		t.Helper()
		want := storeMs.Load()
		deadline := time.Now().Add(10 * time.Second)
		for {
			row, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie))
			if err == nil && row.LastSeenAtMs == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v after the last page, with the live log open: the session's last use is %d (%v), want %d: the stream did not count as use", after, row.LastSeenAtMs, err, want)
			}
			time.Sleep(20 * time.Millisecond)
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
	// Past its lifetime, the open stream ends, saying why.
	storeMs.Add(lifetime.Milliseconds())
	var w *httptest.ResponseRecorder
	select {
	case w = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the live log went on past its session's lifetime")
	}
	said, _ := json.Marshal(tr("en", "log.signedout"))
	if !strings.Contains(w.Body.String(), "event: stopped\ndata: "+string(said)+"\n\n") {
		t.Fatalf("the live log that outlived its session's lifetime ended without saying why:\n%s", w.Body)
	}
}
