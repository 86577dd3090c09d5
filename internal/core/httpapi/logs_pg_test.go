package httpapi_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// statusCounter counts the answers of a handler by status.
type statusCounter struct {
	http.ResponseWriter
	seen *[600]atomic.Int64
}

func (s statusCounter) WriteHeader(code int) {
	s.seen[code].Add(1)
	s.ResponseWriter.WriteHeader(code)
}

// seededLog is a finished cluster Run whose one attempt's log is size
// bytes of x, in three chunks (the largest a chunk may be twice): more
// than two answers of the log route. The CLI reads the database through
// $QL_DATABASE_URL and the test servers take any token.
func seededLog(t *testing.T) (*pgstore.Runtime, string, int) {
	t.Helper()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("logs", 1, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "replica-logs", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	size := 2*httpapi.MaxLogAnswer + 1000
	env.SeedFinished(t, 1, time.Hour, httpapi.MaxLogAnswer)
	env.Exec(t, `INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
SELECT id, o.at, convert_to(repeat('x', o.n), 'UTF8'), created_at_ms FROM qinglong.attempts, (VALUES ($1::bigint, $1::int), (2 * $1::bigint, 1000)) o (at, n)
WHERE run_id IN (SELECT id FROM qinglong.runs WHERE idempotency_key LIKE 'seed:%')`, httpapi.MaxLogAnswer)
	env.Exec(t, `UPDATE qinglong.attempts SET log_bytes = $1 WHERE run_id IN (SELECT id FROM qinglong.runs WHERE idempotency_key LIKE 'seed:%')`, size)
	var runID string
	if err := env.Super.QueryRow(t.Context(), `SELECT id::text FROM qinglong.runs WHERE idempotency_key LIKE 'seed:%'`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QL_DATABASE_URL", env.URL(pgstore.RoleRuntime))
	t.Setenv("QL_TOKEN", "qlt_any") // the test servers sign every request in themselves
	return rt, runID, size
}

// qlMain runs the full binary's command line in process.
func qlMain(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), cli.Options{Binary: "ql", OpenPostgres: replica.Open}, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// `runs logs` over the API reads a log larger than one answer of the log
// route in several, and a token over its rate (one request every two
// seconds here, slower than any read of the test takes however loaded its
// machine, so that its reads are refused) is not the end of it: each read
// the server refuses with 429 is asked again after the seconds it names,
// and the output is what the database path prints, byte for byte. Not parallel: the runtime role's
// URL holds a password, so it reaches the CLI through $QL_DATABASE_URL.
func TestRunsLogsOverTheAPIWaitsOutTheTokensRateAndPrintsTheWholeLog(t *testing.T) {
	rt, runID, size := seededLog(t)
	h := httpapi.Authed(t, httpapi.Config{Runs: rt, Triggers: rt, ReadLog: rt.ReadAttemptLogUpTo, Limits: httpapi.Limits{PerToken: rate.Every(2 * time.Second), Burst: 1},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	var seen [600]atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(statusCounter{w, &seen}, r) }))
	t.Cleanup(srv.Close)
	for _, args := range [][]string{{"runs", "logs", runID}, {"runs", "logs", "-f", runID}} {
		code, out, errOut := qlMain(args...)
		if code != 0 || out != strings.Repeat("x", size) {
			t.Fatalf("ql %v on the database: exit %d, %d bytes, %q; want the seeded log", args, code, len(out), errOut)
		}
		before := seen[http.StatusTooManyRequests].Load()
		rCode, rOut, rErr := qlMain(append(args, "--api-url", srv.URL)...)
		if rCode != code || rOut != out || rErr != errOut {
			t.Errorf("ql %v over the API: exit %d, %d bytes, %q; want what the database path printed: exit %d, %d bytes, %q", args, rCode, len(rOut), rErr, code, len(out), errOut)
		}
		if seen[http.StatusTooManyRequests].Load() == before {
			t.Errorf("ql %v over the API was never refused for its rate; the test asks too little to show it waits", args)
		}
	}
}

// A server older than the log route answers it as a path it does not
// serve: `runs logs` over its API says so and what to do, where a
// follower would otherwise take the answer for a log not written yet and
// print nothing until the Run ends. Not parallel, as above.
func TestRunsLogsOverTheAPIOfAServerWithoutTheLogRouteSaysSo(t *testing.T) {
	rt, runID, _ := seededLog(t)
	h := httpapi.Authed(t, httpapi.Config{Runs: rt, Triggers: rt, ReadLog: rt.ReadAttemptLogUpTo, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	older := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/log") {
			r.URL.Path += "-not-served"
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(older.Close)
	for _, args := range [][]string{{"runs", "logs", runID}, {"runs", "logs", "-f", runID}} {
		code, out, errOut := qlMain(append(args, "--api-url", older.URL)...)
		if code != 4 || out != "" || !strings.Contains(errOut, "serves no run logs over its API (it is older than this ql): upgrade it, or run `ql runs logs` where its database is") {
			t.Errorf("ql %v of a server without the log route: exit %d, %q, %q; want exit 4 (the server as it is cannot), saying so and what to do", args, code, out, errOut)
		}
	}
}
