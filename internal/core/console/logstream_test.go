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

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
)

// stalls is what a store that does not answer does (every connection of
// its pool taken, a disk or a network that hangs): its caller waits until
// it gives up.
func stalls(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// liveToken answers every session check with one active read token, until
// stalled is set.
type liveToken struct {
	apitoken.Authenticator
	stalled atomic.Bool
}

func (l *liveToken) TokenByDigest(ctx context.Context, _ []byte) (apitoken.Token, error) {
	if l.stalled.Load() {
		return apitoken.Token{}, stalls(ctx)
	}
	return apitoken.Token{ID: "t1", Name: "viewer", Scope: apitoken.Read}, nil
}

func (*liveToken) TokenTouch(context.Context, string, int64) error { return nil }

// runningRun reads one running Run with one started attempt for its first
// answers reads, then stalls.
type runningRun struct {
	run.Reader
	answers atomic.Int64
}

func (r *runningRun) RunGet(ctx context.Context, id string) (run.Detail, error) {
	if r.answers.Add(-1) < 0 {
		return run.Detail{}, stalls(ctx)
	}
	started := int64(1)
	return run.Detail{Run: run.Run{ID: id, State: run.Running},
		Attempts: []run.Attempt{{ID: "attempt-1", RunID: id, Number: 1, State: run.AttemptRunning, StartedAtMs: &started}},
		Events:   []run.Event{{RunID: id, Seq: 1, Name: run.EventAttemptStarted, Payload: `{"attempt":1}`, CreatedAtMs: started}}}, nil
}

// liveLogConsole is a console whose Run and log reads are runs and log,
// each given limit, with one signed-in read session; get asks for a path
// with it and returns the answer once the handler has returned, failing
// the test if it has not within a few seconds.
func liveLogConsole(t *testing.T, runs run.Reader, log func(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (int64, bool, error), limit time.Duration) (*liveToken, func(path string) (*httptest.ResponseRecorder, time.Duration)) {
	tokens := &liveToken{}
	c := New(Config{Runs: runs, Tokens: tokens, ReadLog: log, RequestTimeout: limit})
	c.sessions.add(&session{id: "s1", digest: []byte("d1"), scope: apitoken.Read, expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	return tokens, func(path string) (*httptest.ResponseRecorder, time.Duration) {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "s1"})
		w := httptest.NewRecorder()
		start, done := time.Now(), make(chan struct{})
		go func() {
			defer close(done)
			c.ServeHTTP(w, r)
		}()
		// Only a guard against a stream that never ends: a live log
		// answers after several rounds and its last read's limit, which
		// a loaded machine stretches well past the limit itself.
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("GET %s: no answer after 30s; want the stream ended by its reads' %s limit", path, limit)
		}
		return w, time.Since(start)
	}
}

// Every read of a Run's live log has a page's time limit, its first ones
// too: a stream whose Run or log the store does not answer in time ends
// with a "stopped" event saying so, what the page shows is all that was
// read, and to reload it, in the page's language, rather than a stream
// that stalls with nothing said or a browser waiting for its first answer
// for as long as the store does. A session check that does not answer in
// time answers the page's 503 saying so.
func TestEveryReadOfALiveLogHasATimeLimitAndSaysWhenItRunsOut(t *testing.T) {
	t.Parallel()
	const limit = 200 * time.Millisecond
	noLog := func(ctx context.Context, _ string, offset, _ int64, _ io.Writer) (int64, bool, error) {
		return offset, false, stalls(ctx)
	}
	stopped := map[string]string{
		"en": `event: stopped
data: "The live output stopped: the server could not read this run or its output within 200ms`,
		"zh": `event: stopped
data: "实时输出已停止：服务器未能在 200ms`,
	}
	for lang, want := range stopped {
		// The first read of the Run.
		_, get := liveLogConsole(t, &runningRun{}, noLog, limit)
		w, took := get("/runs/r1/log?lang=" + lang)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(w.Body.String(), want) || took < limit {
			t.Errorf("%s: a live log whose Run is not read in time: %d %q after %s; want a stream stopped after %s, saying so:\n%s", lang, w.Code, w.Header().Get("Content-Type"), took, limit, w.Body)
		}
	}

	// A log whose first piece is read and whose next read stalls: the
	// Run's state, its attempts, its events and what was read are sent,
	// then the stream stops.
	reads := atomic.Int64{}
	oneLine := func(ctx context.Context, _ string, offset, _ int64, w io.Writer) (int64, bool, error) {
		if reads.Add(1) > 1 {
			return offset, false, stalls(ctx)
		}
		n, err := io.WriteString(w, "hello\n")
		return offset + int64(n), false, err
	}
	runs := &runningRun{}
	runs.answers.Store(1)
	_, get := liveLogConsole(t, runs, oneLine, limit)
	w, _ := get("/runs/r1/log")
	events := strings.Split(strings.TrimSpace(w.Body.String()), "\n\n")
	if len(events) != 6 ||
		!strings.HasPrefix(events[0], "event: facts\ndata: ") || !strings.Contains(events[0], `data-state=\"running\"\u003erunning`) || !strings.Contains(events[0], `id=\"run-started\"`) ||
		!strings.HasPrefix(events[1], "event: attempts\ndata: ") || !strings.Contains(events[1], "Download log (so far)") ||
		!strings.HasPrefix(events[2], "event: events\ndata: ") || !strings.Contains(events[2], "attempt started") ||
		events[3] != "id: 1:6\nevent: log\ndata: \"hello\\n\"" || events[4] != ": live" || !strings.HasPrefix(events[5], stopped["en"]) {
		t.Errorf("a live log whose second round stalls: %q; want the Run's facts (running, when it started), its attempts, its events, its first line, then the stream stopped, saying so", events)
	}

	tokens, get := liveLogConsole(t, &runningRun{}, noLog, limit)
	tokens.stalled.Store(true)
	if w, took := get("/runs/r1/log"); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "cannot check your session right now") || took < limit {
		t.Errorf("a live log whose session check is not answered in time: %d after %s; want 503 saying so after %s:\n%s", w.Code, took, limit, w.Body)
	}
}

// A long log is read and sent a piece at a time, never asked for whole:
// each read takes at most logPiece bytes and is one event, the events
// carry the log once, in order, and a character split where a piece ends
// is sent whole with the next.
func TestALiveLogIsReadAndSentAPieceAtATime(t *testing.T) {
	t.Parallel()
	log := []byte(strings.Repeat("x", logPiece-1) + "中" + strings.Repeat("y", logPiece))
	var asked atomic.Int64
	from := func(_ context.Context, _ string, offset, most int64, w io.Writer) (int64, bool, error) {
		asked.Store(max(asked.Load(), most))
		end := min(offset+most, int64(len(log)))
		n, err := w.Write(log[offset:end])
		return offset + int64(n), false, err
	}
	runs := &runningRun{}
	runs.answers.Store(1)
	_, get := liveLogConsole(t, runs, from, time.Second)
	w, _ := get("/runs/r1/log")
	var got strings.Builder
	events := 0
	for _, e := range strings.Split(w.Body.String(), "\n\n") {
		if _, data, ok := strings.Cut(e, "event: log\ndata: "); ok {
			var piece string
			if err := json.Unmarshal([]byte(data), &piece); err != nil {
				t.Fatal(err)
			}
			got.WriteString(piece)
			events++
		}
	}
	if got.String() != string(log) || events != 3 || asked.Load() != logPiece {
		t.Fatalf("the stream sent %d bytes in %d events, reads asked for up to %d bytes; want the %d-byte log whole, in 3 events, no read over %d bytes",
			got.Len(), events, asked.Load(), len(log), logPiece)
	}
}
