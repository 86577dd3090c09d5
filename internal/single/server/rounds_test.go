package server

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The single-node scheduler logs its rounds with the stable codes every
// profile shares — a summary with counts by outcome and the rows it put
// aside (unreadable), and one record per failed ticket with its reason —
// and a full page on which nothing could be committed does not spin: its
// rows, failed closed on their own stored state (no execution plan), are
// put aside, the next round (started at once) finds nothing else, and the
// scheduler then waits for the cadence. The commit watch may wake it once
// more for the start's own commits (wake.go); that round, like every one
// after the first, takes nothing and plans no wake before the cadence
// either, so it is checked as they are rather than counted out by timing.
func TestRoundsAreLoggedWithTheSharedCodesAndAFailingPageDoesNotSpin(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	publish(t, dir, 4, "true")
	db, err := sql.Open("sqlite", LayoutOf(dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every row due, every execution plan gone: each admission fails closed.
	if _, err := db.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1`, time.Now().UnixMilli()-1000); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM execution_revisions`); err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	var mu sync.Mutex
	var rounds []schedule.Summary
	const pageSize, cadence = 4, time.Hour // startQuiet's cadence
	srv, err := startQuiet(t, Config{DataDir: dir, PageSize: pageSize,
		Logger: slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		OnRound: func(sum schedule.Summary) {
			mu.Lock()
			defer mu.Unlock()
			rounds = append(rounds, sum)
		}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two rounds' records", 10*time.Second, func() bool { return len(logRecords(t, &log, schedule.CodeRound)) >= 2 })
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if first := rounds[0]; first.Taken != pageSize || !first.StartNextAtOnce(pageSize) {
		t.Fatalf("the first round took %d rows and starts the next at once: %v; want the full page put aside and the next round at once", first.Taken, first.StartNextAtOnce(pageSize))
	}
	for i, sum := range rounds[1:] {
		if sum.Taken != 0 || sum.StartNextAtOnce(pageSize) || sum.Next.Wait(time.Now(), cadence, 0) != cadence {
			t.Fatalf("round %d took %d rows, starts the next at once: %v, waits %v; after the page put aside every round takes nothing and the scheduler waits the cadence (%v)",
				i+2, sum.Taken, sum.StartNextAtOnce(pageSize), sum.Next.Wait(time.Now(), cadence, 0), cadence)
		}
	}
	round := logRecords(t, &log, schedule.CodeRound)
	if len(round) != len(rounds) || round[0]["taken"] != 4.0 || round[0]["failed"] != 4.0 || round[0]["admitted"] != 0.0 || round[0]["unreadable"] != 4.0 {
		t.Fatalf("round records %v; want one per round (%d), the first a page of 4 failed and put aside", round, len(rounds))
	}
	for _, r := range round[1:] {
		if r["taken"] != 0.0 || r["unreadable"] != 0.0 {
			t.Fatalf("round records %v; want every one after the first empty", round)
		}
	}
	tickets := logRecords(t, &log, schedule.CodeTicketFailed)
	if len(tickets) != 4 {
		t.Fatalf("%d ticket records, want 4:\n%s", len(tickets), log.String())
	}
	for _, r := range tickets {
		if r["level"] != "WARN" || r["outcome"] != "failed" || r["reason"] != "execution_missing" || r["error_code"] != "internal" || r["trigger_id"] == nil {
			t.Fatalf("ticket record %v", r)
		}
	}
}

// logRecords decodes the JSON log lines carrying code.
func logRecords(t *testing.T, log *lockedBuffer, code string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split([]byte(strings.TrimSpace(log.String())), []byte("\n")) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["code"] == code {
			out = append(out, rec)
		}
	}
	return out
}
