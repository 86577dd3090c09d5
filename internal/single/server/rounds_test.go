package server

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
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
// scheduler then waits for the cadence.
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
	var rounds atomic.Int32
	srv, err := startQuiet(t, Config{DataDir: dir, PageSize: 4,
		Logger:  slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		OnRound: func(schedule.Summary) { rounds.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two rounds' records", 10*time.Second, func() bool { return len(logRecords(t, &log, schedule.CodeRound)) >= 2 })
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := rounds.Load(); n != 2 {
		t.Fatalf("%d rounds; after the page it put aside and the empty round after it, the scheduler must wait the cadence (1h)", n)
	}
	round := logRecords(t, &log, schedule.CodeRound)
	if len(round) != 2 || round[0]["taken"] != 4.0 || round[0]["failed"] != 4.0 || round[0]["admitted"] != 0.0 || round[0]["unreadable"] != 4.0 ||
		round[1]["taken"] != 0.0 || round[1]["unreadable"] != 0.0 {
		t.Fatalf("round records %v; want a page of 4 failed and put aside, then an empty round", round)
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
