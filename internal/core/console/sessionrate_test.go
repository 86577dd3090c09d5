package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A session that sends more requests than its rate allows gets a page,
// in its language, that says to slow down (429, Retry-After), while
// another session goes on; a second later the session is served again.
func TestASessionOverItsRequestRateIsToldToSlowDown(t *testing.T) {
	site := newSessionSite(t).serve(Config{})
	busy, other := site.signIn(t), site.signIn(t)
	for i := range SessionBurst {
		if w := site.get(busy, "/account"); w.Code != http.StatusOK {
			t.Fatalf("request %d of the session's burst of %d: %d, want the page", i+1, SessionBurst, w.Code)
		}
	}
	w := site.get(busy, "/account?lang=zh")
	if want := fmt.Sprintf(tr("zh", "err.sessionrate"), float64(SessionRate)); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" ||
		!strings.Contains(w.Body.String(), want) || !strings.Contains(w.Body.String(), tr("zh", "err.429")) {
		t.Fatalf("past the session's rate: %d, Retry-After %q; want 429 with Retry-After 1 saying %q:\n%s", w.Code, w.Header().Get("Retry-After"), want, w.Body)
	}
	if w := site.get(other, "/account"); w.Code != http.StatusOK {
		t.Fatalf("another session, while the first is over its rate: %d, want the page", w.Code)
	}
	site.nowMs.Add(time.Second.Milliseconds())
	if w := site.get(busy, "/account"); w.Code != http.StatusOK {
		t.Fatalf("a second later: %d, want the page", w.Code)
	}
}

// The stylesheet, the script and the icon every page names count nothing
// against a session's rate: a session at its rate still gets them.
func TestTheConsolesAssetsDoNotCountAgainstASessionsRate(t *testing.T) {
	site := newSessionSite(t).serve(Config{})
	cookie := site.signIn(t)
	for range SessionBurst {
		site.get(cookie, "/account")
	}
	for _, a := range []string{"app.css", "app.js", "icon.svg"} {
		if w := site.get(cookie, "/assets/"+a); w.Code != http.StatusOK {
			t.Fatalf("/assets/%s of a session at its rate: %d, want the file", a, w.Code)
		}
	}
}

// A live log asked for past the session's rate is answered with the
// "stopped" event saying to slow down, which the page shows under the
// log: a 429 page would be an answer the browser's EventSource drops
// without a word.
func TestALiveLogPastTheSessionsRateSaysWhyItIsNotFollowed(t *testing.T) {
	nowMs := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()
	c := New(Config{Runs: &runningRun{}, Tokens: &liveToken{}, NowMs: func() int64 { return nowMs },
		ReadLog: func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) { return 0, false, nil }})
	c.sessions.add(&session{id: "s1", digest: []byte("d1"), scope: apitoken.Read, expiresMs: 1 << 62, seenMs: nowMs})
	get := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "s1"})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		return w
	}
	for range SessionBurst {
		get("/account")
	}
	w := get("/runs/r1/log?lang=en")
	said, _ := json.Marshal(fmt.Sprintf(tr("en", "err.sessionrate"), float64(SessionRate)))
	if w.Header().Get("Content-Type") != "text/event-stream" || !strings.Contains(w.Body.String(), "event: stopped\ndata: "+string(said)+"\n\n") {
		t.Fatalf("a live log past the session's rate: %d %q:\n%s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
}
