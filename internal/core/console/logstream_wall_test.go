package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A live log a user opened before two-step sign-in was required of every
// user stops at its next check of the session once it is, saying why in
// the page's language and where to set it up; one a token's session
// opened goes on, as a token is never walled.
func TestALiveLogOfAUserAtTheWallStopsAndATokensGoesOn(t *testing.T) {
	site := newSessionSite(t)
	const password = "correct horse battery"
	if _, err := account.Create(t.Context(), site.st, "tester", ids.New(), "vera", account.Operator, password); err != nil {
		t.Fatal(err)
	}
	runs := &readsByRun{reads: map[string]int{}, round: make(chan struct{}, 1)}
	runs.answers.Store(1 << 40)
	site.serve(Config{Users: site.st, TwoStep: site.st, Runs: runs,
		ReadLog: func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) { return 0, false, nil }})
	signin := postSignin(site.c, url.Values{"user": {"vera"}, "password": {password}}, "192.0.2.1")
	vera := ""
	for _, ck := range signin.Result().Cookies() {
		if ck.Name == sessionCookie {
			vera = ck.Value
		}
	}
	if signin.Code != http.StatusSeeOther || vera == "" {
		t.Fatalf("vera's sign-in: %d\n%s", signin.Code, signin.Body)
	}
	token := site.signIn(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	follow := func(cookie, runID, lang string) chan *httptest.ResponseRecorder {
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() { done <- site.getWith(ctx, cookie, "/runs/"+runID+"/log?lang="+lang) }()
		return done
	}
	// Each follows a Run of its own, so the test knows each stream's
	// rounds: a stream that read its Run twice is open and past its start.
	veraDone, tokenDone := follow(vera, "r-vera", "zh"), follow(token, "r-token", "en")
	runs.await(t, "r-vera", 2)
	runs.await(t, "r-token", 2)
	if _, err := site.st.TwoStepRequire(t.Context(), true, "tester"); err != nil {
		t.Fatal(err)
	}
	site.nowMs.Add(websession.SeenEvery.Milliseconds())
	var w *httptest.ResponseRecorder
	select {
	case w = <-veraDone:
	case <-time.After(roundsLimit):
		t.Fatal("vera's live log went on at the two-step wall")
	}
	said, _ := json.Marshal(tr("zh", "log.walled"))
	if !strings.Contains(w.Body.String(), "event: stopped\ndata: "+string(said)+"\n\n") {
		t.Fatalf("vera's live log ended at the wall without saying why:\n%s", w.Body)
	}
	// The token's stream checks its session in each round begun after
	// the clock moved: the second read from here is of such a round.
	runs.await(t, "r-token", runs.readsOf("r-token")+2)
	select {
	case w := <-tokenDone:
		t.Fatalf("the token's live log ended while two-step sign-in is required:\n%s", w.Body)
	default:
	}
	cancel()
	if w := <-tokenDone; strings.Contains(w.Body.String(), "event: stopped") {
		t.Fatalf("the token's live log was stopped:\n%s", w.Body)
	}
}

// readsByRun is a runningRun that counts its reads of each Run, one per
// round of the live log following it: a test waits for a stream's round
// to have come instead of for a time to have passed.
type readsByRun struct {
	runningRun
	mu    sync.Mutex
	reads map[string]int
	// round has a value when a read came since the last wait took it.
	round chan struct{}
}

func (r *readsByRun) RunGet(ctx context.Context, id string) (run.Detail, error) {
	r.mu.Lock()
	r.reads[id]++
	r.mu.Unlock()
	select {
	case r.round <- struct{}{}:
	default:
	}
	return r.runningRun.RunGet(ctx, id)
}

// readsOf is how many times Run id was read.
func (r *readsByRun) readsOf(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads[id]
}

// await returns once Run id has been read n times, failing the test if
// its stream stops reading it for roundsLimit.
func (r *readsByRun) await(t *testing.T, id string, n int) {
	t.Helper()
	for r.readsOf(id) < n {
		select {
		case <-r.round:
		case <-time.After(roundsLimit):
			t.Fatalf("the live log of %s read it %d times in all, want %d: its rounds stopped", id, r.readsOf(id), n)
		}
	}
}
