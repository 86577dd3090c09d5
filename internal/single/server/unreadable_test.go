package server

import (
	"database/sql"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// TestAnEdgeServerRunsATriggerDueBehindAPageOfTriggersItCannotRead: an
// edge server (a page of four) whose zone database lacks the zone of five
// triggers — a server with a newer one published them — that sort ahead
// of a readable trigger firing every second still runs the readable one
// every second. Each round fails the five (cron_invalid) and puts each
// aside; before, the take returned four of them at the head of every
// round, the readable trigger was never even initialised, and the full
// page that made no progress waited out the cadence (an hour here).
func TestAnEdgeServerRunsATriggerDueBehindAPageOfTriggersItCannotRead(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tgs := publish(t, dir, 6, "true")
	slices.SortFunc(tgs, func(a, b trigger.Revision) int { return strings.Compare(a.TriggerID, b.TriggerID) })
	unreadable, readable := tgs[:5], tgs[5]
	storeZoneOf(t, dir, "Mars/Olympus", unreadable)
	var failed atomic.Int64
	srv, err := startQuiet(t, Config{DataDir: dir, Profile: Edge, OnRound: func(s schedule.Summary) {
		failed.Add(int64(s.Reasons[schedule.ReasonCronInvalid]))
	}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second)
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", LayoutOf(dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runsOf := func(triggerID string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs WHERE trigger_id = ?`, triggerID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if failed.Load() < int64(len(unreadable)) {
		t.Fatalf("the rounds failed %d tickets as cron_invalid; want each of the %d unreadable triggers failed", failed.Load(), len(unreadable))
	}
	for _, tg := range unreadable {
		if n := runsOf(tg.TriggerID); n != 0 {
			t.Fatalf("unreadable trigger %s has %d Runs, want none", tg.Spec.Name, n)
		}
	}
	if n := runsOf(readable.TriggerID); n < 2 {
		t.Fatalf("the readable trigger firing every second has %d Runs after 4 s behind %d unreadable ones; want at least 2", n, len(unreadable))
	}
	t.Logf("%d unreadable tickets failed; the readable trigger ran %d times in 4 s", failed.Load(), runsOf(readable.TriggerID))
}

// storeZoneOf gives tgs a stored zone, behind the store's back, as a
// server whose zone database has it would have published them.
func storeZoneOf(t *testing.T, dataDir, zone string, tgs []trigger.Revision) {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(dataDir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var guard, guardSQL string
	if err := db.QueryRow(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'trigger_revisions' AND sql LIKE '%BEFORE UPDATE%'`).Scan(&guard, &guardSQL); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TRIGGER ` + guard); err != nil {
		t.Fatal(err)
	}
	for _, tg := range tgs {
		spec := tg.Spec
		spec.Cron.Timezone = zone
		if _, err := db.Exec(`UPDATE trigger_revisions SET timezone = ?, content_digest = ? WHERE trigger_id = ? AND revision = ?`, zone,
			trigger.ContentDigest(tg.ProjectID, tg.TriggerID, tg.TaskID, tg.TaskRevision, tg.TaskContentDigest, spec), tg.TriggerID, tg.Revision); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(guardSQL); err != nil {
		t.Fatal(err)
	}
}
