package server

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// applyElsewhere publishes a project with one task running script and one
// trigger on cron through connections of its own, as `ql apply` in another
// process does, and returns the trigger.
func applyElsewhere(t *testing.T, dataDir string, cron trigger.Cron, script string) trigger.Revision {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := project.Project{ID: ids.New(), Name: "elsewhere", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Minute.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "tick", Enabled: true, Cron: cron})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// runNowElsewhere admits a manual Run of tg through connections of its
// own, as `ql triggers run` in another process does.
func runNowElsewhere(t *testing.T, dataDir string, tg trigger.Revision) string {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err := b.Store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "elsewhere"})
	if err != nil || res.RunID == "" {
		t.Fatalf("run now: %+v, %v", res, err)
	}
	return res.RunID
}

// never has no occurrence while a test runs (the first of January).
var never = trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}

// startEdgeIdle starts an edge server with an hour's cadence on dataDir and
// waits for its first round, so from then on only an early wake-up admits
// or starts anything within the hour. It returns the round count.
func startEdgeIdle(t *testing.T, dataDir string) *atomic.Int32 {
	t.Helper()
	var rounds atomic.Int32
	if _, err := startQuiet(t, Config{DataDir: dataDir, Profile: Edge, OnRound: func(schedule.Summary) { rounds.Add(1) }}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first round", 10*time.Second, func() bool { return rounds.Load() > 0 })
	return &rounds
}

// TestATriggerAnotherProcessAppliesIsAdmittedAtItsDueInstantNotAtTheNextTick:
// an edge server with an hour's cadence, idle since its first round, admits
// a trigger that another process applied three seconds ahead of its first
// occurrence at that occurrence's instant.
func TestATriggerAnotherProcessAppliesIsAdmittedAtItsDueInstantNotAtTheNextTick(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	startEdgeIdle(t, dir)
	cron := everySecond
	cron.StartAtMs = time.Now().Add(3 * time.Second).UnixMilli()
	applyElsewhere(t, dir, cron, "true")
	db := observer(t, dir)
	waitFor(t, "the applied trigger's first Run", 15*time.Second, func() bool { return count(t, db, runsSQL) > 0 })
	var scheduled, lag int64
	if err := db.QueryRow(`SELECT scheduled_for_ms, created_at_ms - scheduled_for_ms FROM runs ORDER BY scheduled_for_ms LIMIT 1`).Scan(&scheduled, &lag); err != nil {
		t.Fatal(err)
	}
	if scheduled < cron.StartAtMs || lag >= 1000 {
		t.Fatalf("the first Run is scheduled for %d (start %d) and admitted %d ms after it; want its first occurrence, admitted within a second", scheduled, cron.StartAtMs, lag)
	}
	t.Logf("admitted %d ms after its due instant", lag)
}

// TestARunAnotherProcessAdmitsNowStartsLongBeforeTheNextTick: a Run that
// `ql triggers run` admits in another process is started by an edge server
// with an hour's cadence, idle since its first round, within seconds.
func TestARunAnotherProcessAdmitsNowStartsLongBeforeTheNextTick(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tg := applyElsewhere(t, dir, never, "true")
	startEdgeIdle(t, dir)
	runID := runNowElsewhere(t, dir, tg)
	db := observer(t, dir)
	waitFor(t, "the manual Run to run", 15*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = 'succeeded'`, runID) == 1
	})
}

// TestTheServersOwnCommitsWakeItAtMostOnceAndThenItRests: a Run admitted
// elsewhere wakes the server, whose own commits (the Run's start and end)
// wake it again through the same watch; with nothing left to do, those
// rounds commit nothing, and the idle server then runs no round for
// several watch periods.
func TestTheServersOwnCommitsWakeItAtMostOnceAndThenItRests(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tg := applyElsewhere(t, dir, never, "true")
	rounds := startEdgeIdle(t, dir)
	runID := runNowElsewhere(t, dir, tg)
	db := observer(t, dir)
	waitFor(t, "the manual Run to run", 15*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = 'succeeded'`, runID) == 1
	})
	// The look after the Run's last commit wakes the loops once more.
	time.Sleep(3 * EdgeWatch)
	before := rounds.Load()
	time.Sleep(4 * EdgeWatch)
	if n := rounds.Load() - before; n != 0 {
		t.Fatalf("the idle server ran %d rounds in %s after its last commit; want none until something commits or the cadence passes", n, 4*EdgeWatch)
	}
}

// TestACancelAnotherProcessAsksStopsTheRunningCommandLongBeforeTheNextTick:
// `ql runs cancel` in another process stops a running command of an edge
// server with an hour's cadence within seconds, its Run ending cancelled.
func TestACancelAnotherProcessAsksStopsTheRunningCommandLongBeforeTheNextTick(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	// The server admits and starts the first occurrence by itself, and
	// while its command runs passes the later ones over without a Run
	// (which wakes no dispatcher round), so only the cancel comes from
	// elsewhere.
	cron := everySecond
	cron.Overlap = trigger.OverlapSkip
	applyElsewhere(t, dir, cron, "sleep 60")
	startEdgeIdle(t, dir)
	db := observer(t, dir)
	var runID string
	waitFor(t, "the first occurrence's command to run", 15*time.Second, func() bool {
		return db.QueryRow(`SELECT run_id FROM attempts WHERE state = 'running'`).Scan(&runID) == nil
	})
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, _, err := b.Store.CancelRun(t.Context(), runID, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Run to end cancelled", 15*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = 'cancelled'`, runID) == 1
	})
}
