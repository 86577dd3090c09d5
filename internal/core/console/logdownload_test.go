package console

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// oneAttempt reads a Run of project shop and trigger nightly with one
// started attempt whose record counts logBytes, running or ended.
type oneAttempt struct {
	run.Reader
	running  bool
	logBytes int64
}

func (o oneAttempt) RunGet(_ context.Context, id string) (run.Detail, error) {
	started := int64(1)
	x := run.Detail{Run: run.Run{ID: id, ProjectName: "shop", TriggerName: "nightly", State: run.Succeeded},
		Attempts: []run.Attempt{{ID: "attempt-1", RunID: id, Number: 1, State: run.AttemptSucceeded, StartedAtMs: &started, LogBytes: o.logBytes}}}
	if o.running {
		x.Run.State, x.Attempts[0].State = run.Running, run.AttemptRunning
	}
	return x, nil
}

// downloadServer serves a console whose Run reads are runs and log reads
// log, each given limit, with one signed-in read session, over a real
// listener (a download cut off is a connection cut); get downloads a path
// with that session.
func downloadServer(t *testing.T, runs run.Reader, log func(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (int64, bool, error), limit time.Duration, logs io.Writer) func(path string) (*http.Response, []byte, error) {
	t.Helper()
	c := New(Config{Runs: runs, Tokens: &liveToken{}, ReadLog: log, RequestTimeout: limit, Log: slog.New(slog.NewJSONHandler(logs, nil))})
	c.sessions.add(&session{id: "s1", digest: []byte("d1"), scope: apitoken.Read, expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return func(path string) (*http.Response, []byte, error) {
		t.Helper()
		r, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "s1"})
		resp, err := srv.Client().Do(r)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
}

// logOf reads from log as a store does, at most max bytes from offset,
// taking wait for each read, and records the most one read asked for.
func logOf(log []byte, wait time.Duration, asked *atomic.Int64) func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) {
	return func(ctx context.Context, _ string, offset, most int64, w io.Writer) (int64, bool, error) {
		asked.Store(max(asked.Load(), most))
		select {
		case <-ctx.Done():
			return offset, false, ctx.Err()
		case <-time.After(wait):
		}
		end := min(offset+most, int64(len(log)))
		if offset >= end {
			return offset, false, nil
		}
		n, err := w.Write(log[offset:end])
		return offset + int64(n), false, err
	}
}

// A log is downloaded as it is stored, read a piece of at most logPiece
// bytes at a time, each read under its own time limit, so a download
// taking longer than one page's limit is whole: an ended attempt's log
// holding what its record counts comes with its length, and a log its
// record does not count (a running attempt's, or one a crash left longer)
// comes without one, whole all the same.
func TestALogDownloadIsReadAPieceAtATimeEachUnderItsOwnTimeLimit(t *testing.T) {
	t.Parallel()
	const limit = 300 * time.Millisecond
	log := append(bytes.Repeat([]byte("line\n"), (2*logPiece+logPiece/2)/5), 0xff, 0xfe, '\r', '\n')
	for _, c := range []struct {
		name   string
		runs   oneAttempt
		length string
	}{
		{"an ended attempt", oneAttempt{logBytes: int64(len(log))}, "2621444"},
		{"an ended attempt whose record counts less", oneAttempt{logBytes: 1000}, ""},
		{"a running attempt", oneAttempt{running: true, logBytes: 0}, ""},
	} {
		var asked atomic.Int64
		// Each read takes most of the limit: the download takes several.
		get := downloadServer(t, c.runs, logOf(log, limit*2/3, &asked), limit, io.Discard)
		start := time.Now()
		resp, body, err := get("/runs/r1/download?attempt=1")
		took := time.Since(start)
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(body, log) {
			t.Fatalf("%s: %v, %d bytes; want the %d-byte log as stored", c.name, err, len(body), len(log))
		}
		if got := resp.Header.Get("Content-Length"); got != c.length {
			t.Errorf("%s: Content-Length %q, want %q", c.name, got, c.length)
		}
		if asked.Load() > logPiece || took < 2*limit {
			t.Errorf("%s: a read asked for up to %d bytes and the download took %s; want no read over %d bytes, the download outlasting the %s limit", c.name, asked.Load(), took, logPiece, limit)
		}
	}
}

// A read of a download that fails after its first bytes were sent cuts
// the connection, whether the answer said its length or not, so the
// browser says the download failed instead of keeping part of the log as
// if it were whole; the server logs it. One that fails before the first
// byte is a page saying what happened.
func TestALogDownloadThatFailsAfterItsFirstBytesIsCutOff(t *testing.T) {
	t.Parallel()
	const limit = 200 * time.Millisecond
	log := bytes.Repeat([]byte("x"), 2*logPiece)
	firstOnly := func(reads *atomic.Int64, stallAt int64) func(context.Context, string, int64, int64, io.Writer) (int64, bool, error) {
		var asked atomic.Int64
		read := logOf(log, 0, &asked)
		return func(ctx context.Context, id string, offset, most int64, w io.Writer) (int64, bool, error) {
			if reads.Add(1) >= stallAt {
				return offset, false, stalls(ctx)
			}
			return read(ctx, id, offset, most, w)
		}
	}
	// An ended attempt's download reads its last bytes (to check the
	// length) and its first piece before it answers: its third read stalls.
	for _, c := range []struct {
		name    string
		runs    oneAttempt
		stallAt int64
	}{
		{"an ended attempt", oneAttempt{logBytes: int64(len(log))}, 3},
		{"a running attempt", oneAttempt{running: true}, 2},
	} {
		var logs syncbuf.Buffer
		var reads atomic.Int64
		get := downloadServer(t, c.runs, firstOnly(&reads, c.stallAt), limit, &logs)
		resp, body, err := get("/runs/r1/download?attempt=1")
		if err == nil || resp.StatusCode != http.StatusOK || len(body) >= len(log) {
			t.Errorf("%s: a download whose second piece is not read in time: %v after %d bytes; want the connection cut short of the %d-byte log", c.name, err, len(body), len(log))
		}
		if !strings.Contains(logs.String(), `"code":"`+CodeLogDownloadCut+`"`) {
			t.Errorf("%s: the server logged %q; want %s", c.name, logs.String(), CodeLogDownloadCut)
		}
	}
	var reads atomic.Int64
	get := downloadServer(t, oneAttempt{running: true}, firstOnly(&reads, 1), limit, io.Discard)
	resp, body, err := get("/runs/r1/download?attempt=1&lang=zh")
	if err != nil || resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), "此页面耗时超过 200ms") {
		t.Errorf("a download whose first piece is not read in time: %v, %d; want 504 saying so in the page's language:\n%s", err, resp.StatusCode, body)
	}
}

// A downloaded log's file name is its project, trigger, Run and attempt,
// of letters, digits, '-', '_' and '.' only: nothing that could end the
// header's quoted string, name a directory or hide the extension.
func TestADownloadedLogsFileNameHasOnlySafeCharacters(t *testing.T) {
	for _, c := range []struct {
		x    run.Run
		want string
	}{
		{run.Run{ID: "0190a1b2-c3d4", ProjectName: "shop", TriggerName: "nightly"}, "shop-nightly-0190a1b2-c3d4-attempt-2.log"},
		{run.Run{ID: "r1", ProjectName: `a"b\c/d`, TriggerName: "每日\r\n"}, "a_b_c_d-____-r1-attempt-2.log"},
		{run.Run{ID: "r1", ProjectName: "..", TriggerName: "x"}, "-x-r1-attempt-2.log"},
		{run.Run{ID: "r1"}, "r1-attempt-2.log"},
	} {
		if got := logFileName(c.x, 2); got != c.want {
			t.Errorf("logFileName(%q, %q, %q) = %q, want %q", c.x.ProjectName, c.x.TriggerName, c.x.ID, got, c.want)
		}
	}
}
