package server

import (
	"database/sql"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestATriggerDueBetweenCadenceTicksIsAdmittedAtItsDueInstant: with an
// hour's cadence, triggers firing every second are admitted within a
// fraction of a second of each due instant — polling alone would admit
// nothing after the first round for an hour.
func TestATriggerDueBetweenCadenceTicksIsAdmittedAtItsDueInstant(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	publish(t, dir, 3, "true")
	var rounds atomic.Int32
	srv, err := startQuiet(t, Config{DataDir: dir, OnRound: func(schedule.Summary) { rounds.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first round", 10*time.Second, func() bool { return rounds.Load() > 0 })
	firstRound := time.Now().UnixMilli()
	time.Sleep(3 * time.Second)
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", LayoutOf(dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runs, maxLag, dups int64
	if err := db.QueryRow(`SELECT count(*), coalesce(max(created_at_ms - scheduled_for_ms), 0) FROM runs WHERE scheduled_for_ms > ?`,
		firstRound).Scan(&runs, &maxLag); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM runs GROUP BY trigger_id, scheduled_for_ms HAVING count(*) > 1)`).Scan(&dups); err != nil {
		t.Fatal(err)
	}
	if runs < 3*2 || maxLag >= 1000 || dups != 0 {
		t.Fatalf("%d occurrences admitted in the 3 s after the first round with an hour's cadence, lag up to %d ms, %d duplicated; want ≥ 6 at their due instant, none twice", runs, maxLag, dups)
	}
	t.Logf("%d occurrences, lag ≤ %d ms", runs, maxLag)
}
