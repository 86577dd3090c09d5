package server

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// defaultBenchRuns is how many Runs the runs list is rendered over unless
// QL_BENCH_RUNS says otherwise (QL_BENCH_RUNS=1000000 for the target
// size): the page is a keyset range, so its cost should not grow with the
// table.
const defaultBenchRuns = 100_000

// benchRunsFromEnv is QL_BENCH_RUNS, or defaultBenchRuns.
func benchRunsFromEnv(b *testing.B) int {
	v := os.Getenv("QL_BENCH_RUNS")
	if v == "" {
		return defaultBenchRuns
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1_000 {
		b.Fatalf("QL_BENCH_RUNS=%q: give a whole number of at least 1000", v)
	}
	return n
}

// seedRunsSQL copies the template Run ?1 n (?2) times as finished Runs, one
// a second from ?3 on, in one set-based statement. Each copy gets the
// UUIDv7 its admission time would give it (zero random bits, so its id is
// ids.FloorAt of that time), so id order is admission order as for real
// Runs; every tenth one failed.
const seedRunsSQL = `
WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < ?2)
INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
  idempotency_key, scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms,
  finished_at_ms, waits_for_previous)
SELECT printf('%08x-%04x-7000-8000-000000000000', (?3 + n * 1000) >> 16, (?3 + n * 1000) & 65535),
       t.project_id, t.task_id, t.task_revision, t.trigger_id, t.trigger_revision, t.execution_revision_id,
       'ql3:bench:' || n, ?3 + n * 1000, ?3 + n * 1000, CASE WHEN n % 10 = 0 THEN 'failed' ELSE 'succeeded' END, 4, 4,
       ?3 + n * 1000, ?3 + n * 1000, ?3 + n * 1000 + 500, ?3 + n * 1000 + 500, 0
FROM seq, (SELECT * FROM runs WHERE id = ?1) t`

// BenchmarkConsoleRunsListPage renders the console's runs list over
// QL_BENCH_RUNS Runs on SQLite, as a signed-in browser asks for it: the
// first page, a deep keyset page (after the Run a tenth of the way from
// the oldest) and a one-hour time window in the middle of the history.
func BenchmarkConsoleRunsListPage(b *testing.B) {
	n := benchRunsFromEnv(b)
	dir := b.TempDir()
	tg := publish(b, dir, 1, "true")
	be, err := OpenBackend(b.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := be.Store.TriggerRunNow(b.Context(), schedule.RunNowRequest{TriggerID: tg[0].TriggerID, Actor: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	secret, _, err := apitoken.Create(b.Context(), be.Store, "tester", ids.New(), "bench", apitoken.Read, 0)
	if err != nil {
		b.Fatal(err)
	}
	be.Close()
	start := time.Now().Add(-time.Duration(n+10) * time.Second).UnixMilli()
	seeded := time.Now()
	if err := seedRuns(dir, tmpl.RunID, n, start); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d Runs in %s", n, time.Since(seeded).Round(time.Millisecond))
	be, err = OpenBackend(b.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	ts := httptest.NewServer(console.New(console.Config{Runs: be.Store, Triggers: be.Store, Detail: be.Store, Tokens: be.Store, Export: be.Store}))
	defer ts.Close()
	site := &consoleSite{base: ts.URL}
	c := consoleClient(b)
	site.signIn(b, c, secret)
	mid := time.UnixMilli(start + int64(n/2)*1000).UTC()
	window := url.Values{"from": {mid.Format("2006-01-02T15:04")}, "to": {mid.Add(time.Hour).Format("2006-01-02T15:04")}}
	for _, p := range []struct{ name, path string }{
		{"first", "/runs"},
		{"deep", "/runs?after=" + ids.FloorAt(start+int64(n/10)*1000)},
		{"window", "/runs?" + window.Encode()},
	} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := c.Get(ts.URL + p.path)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || len(body) < 1000 {
					b.Fatalf("GET %s: %d, %d bytes", p.path, resp.StatusCode, len(body))
				}
			}
		})
	}
}

func seedRuns(dir, templateRunID string, n int, startMs int64) error {
	db, err := sql.Open("sqlite", LayoutOf(dir).DB+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Exec(seedRunsSQL, templateRunID, n, startMs)
	if err != nil {
		return err
	}
	if got, err := res.RowsAffected(); err != nil || got != int64(n) {
		return fmt.Errorf("seeded %d Runs (%v), want %d", got, err, n)
	}
	return nil
}
