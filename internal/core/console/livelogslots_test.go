package console

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// One session follows at most maxLiveLogs live logs at once: past that a
// stream is answered with a "stopped" event saying so and what to do, in
// the page's language, and reads nothing; a stream that ends, its client
// gone, frees its slot for the next.
func TestASessionFollowsABoundedNumberOfLiveLogsAndAClosedOneFreesItsSlot(t *testing.T) {
	t.Parallel()
	rr := &runningRun{}
	rr.answers.Store(1 << 40)
	noOutput := func(_ context.Context, _ string, offset, _ int64, _ io.Writer) (int64, bool, error) {
		return offset, false, nil
	}
	c := New(Config{Runs: rr, Tokens: &liveToken{}, ReadLog: noOutput})
	c.sessions.add(&session{id: "s1", digest: []byte("d1"), scope: apitoken.Read, expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	open := func(ctx context.Context, lang string) (*httptest.ResponseRecorder, chan struct{}) {
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/runs/run-1/log?lang="+lang, nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "s1"})
		w, done := httptest.NewRecorder(), make(chan struct{})
		go func() {
			defer close(done)
			c.ServeHTTP(w, r)
		}()
		return w, done
	}
	// awaitSlots waits for the streams started to have taken their slots.
	awaitSlots := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); c.liveLogs.count("s1") != n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d live logs counted, want %d", c.liveLogs.count("s1"), n)
			}
		}
	}
	cancels := make([]context.CancelFunc, maxLiveLogs)
	dones := make([]chan struct{}, maxLiveLogs)
	for i := range maxLiveLogs {
		ctx, cancel := context.WithCancel(t.Context())
		cancels[i] = cancel
		_, dones[i] = open(ctx, "en")
	}
	defer func() {
		for i := range cancels {
			cancels[i]()
			<-dones[i]
		}
	}()
	awaitSlots(maxLiveLogs)
	for lang, want := range map[string]string{"en": fmt.Sprintf(tr("en", "log.toomany"), maxLiveLogs), "zh": fmt.Sprintf(tr("zh", "log.toomany"), maxLiveLogs)} {
		// The bound is a guard only: a refused stream answers at once, and
		// one that is followed instead is cut there and fails below.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		w, done := open(ctx, lang)
		<-done
		cancel()
		if body := w.Body.String(); !strings.HasPrefix(body, "event: stopped\ndata: \""+want) {
			t.Fatalf("%s: a live log past the bound answered %d:\n%s\nwant the stopped event saying %q", lang, w.Code, body, want)
		}
	}
	if n := c.liveLogs.count("s1"); n != maxLiveLogs {
		t.Fatalf("refused streams changed the count to %d", n)
	}
	// One stream's client goes away: its slot is free, and a new stream
	// takes it and follows.
	cancels[0]()
	<-dones[0]
	awaitSlots(maxLiveLogs - 1)
	ctx, cancel := context.WithCancel(t.Context())
	cancels[0] = cancel
	var w *httptest.ResponseRecorder
	w, dones[0] = open(ctx, "en")
	awaitSlots(maxLiveLogs)
	cancel()
	<-dones[0]
	if body := w.Body.String(); strings.Contains(body, "event: stopped") || !strings.Contains(body, ": live") {
		t.Fatalf("a live log after one closed was not followed:\n%s", body)
	}
}
