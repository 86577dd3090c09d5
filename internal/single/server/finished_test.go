package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// publishScripts writes one hourly trigger per script into dataDir's
// database, each of a task of its own running it, and returns an operate
// token for the API.
func publishScripts(t *testing.T, dataDir string, scripts ...string) string {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := project.Project{ID: ids.New(), Name: "outcomes", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	hourly := trigger.Cron{Expression: "0 * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	for i, script := range scripts {
		tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: fmt.Sprintf("job%d", i), Enabled: true,
			Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds()}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(),
			trigger.Spec{Name: fmt.Sprintf("h%d", i), Enabled: true, Cron: hourly}); err != nil {
			t.Fatal(err)
		}
	}
	token, _, err := apitoken.Create(t.Context(), b.Store, "tester", ids.New(), "operator", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// finishedCounts reads qinglong_runs_finished_total by outcome from a
// scrape.
func finishedCounts(t *testing.T, addr string) map[run.State]float64 {
	t.Helper()
	m := metricstest.Scrape(t, "http://"+addr+"/metrics")
	out := map[run.State]float64{}
	for _, s := range run.FinishedStates {
		out[s] = m.Value(t, "qinglong_runs_finished_total", "outcome", string(s))
	}
	return out
}

// TestAStandaloneServerCountsEachFinishedRunOnceByOutcome: every outcome
// shows 0 before any Run finished; a Run whose command exits 3 raises
// failed by exactly 1; a Run cancelled through the API while its command
// runs counts once as cancelled — by the executor's result, not by the
// cancel, which only asked — and a second cancel of it counts nothing.
func TestAStandaloneServerCountsEachFinishedRunOnceByOutcome(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	token := publishScripts(t, dir, "exit 3", "sleep 300")
	var now atomic.Int64
	now.Store(time.Now().Add(2 * time.Hour).UnixMilli())
	// Two commands at once: the failing one must not wait behind the one
	// that sleeps.
	srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", NowMs: now.Load,
		Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 2, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	db := observer(t, dir)
	// The count follows the result's commit: wait for it, then require it
	// exact at the end (a counter only grows).
	counted := func(what string, want map[run.State]float64) {
		t.Helper()
		waitFor(t, what, 30*time.Second, func() bool { return equalCounts(finishedCounts(t, srv.MetricsAddr()), want) })
	}
	want := map[run.State]float64{run.Succeeded: 0, run.Failed: 0, run.TimedOut: 0, run.Cancelled: 0, run.Lost: 0}
	if got := finishedCounts(t, srv.MetricsAddr()); got[run.Failed] > 1 || got[run.Cancelled] != 0 {
		t.Fatalf("at the start: %v", got)
	}
	waitFor(t, "the failing Run failed and the other running", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE state = 'failed'`) == 1 && count(t, db, runningSQL) == 1
	})
	want[run.Failed] = 1
	counted("one failed Run counted", want)

	var running string
	if err := db.QueryRow(`SELECT id FROM runs WHERE state = 'running'`).Scan(&running); err != nil {
		t.Fatal(err)
	}
	cancel := func() {
		t.Helper()
		if status, body, _ := httpcall.Bearer(t, http.MethodPost, "http://"+srv.Addr()+"/api/v1/runs/"+running+"/cancel", token, []byte("{}")); status != http.StatusOK {
			t.Fatalf("cancel: %d %s", status, body)
		}
	}
	cancel()
	want[run.Cancelled] = 1
	counted("the cancelled Run counted", want)
	if n := count(t, db, `SELECT count(*) FROM runs WHERE id = ? AND state = 'cancelled'`, running); n != 1 {
		t.Fatalf("the Run counted cancelled is not cancelled in the database")
	}
	// A second cancel finds the Run finished: it counts nothing.
	cancel()
	if got := finishedCounts(t, srv.MetricsAddr()); !equalCounts(got, want) {
		t.Fatalf("after a second cancel of the cancelled Run: %v, want %v", got, want)
	}
	t.Logf("qinglong_runs_finished_total: %v", want)
}

// TestAStandaloneServerCountsAQueuedRunItsAPICancelledOnce: a Run queued
// behind a running one and cancelled through the API is counted by that
// call, before its answer; cancelling it again counts nothing.
func TestAStandaloneServerCountsAQueuedRunItsAPICancelledOnce(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	token := publishScripts(t, dir, "sleep 300", "sleep 300")
	var now atomic.Int64
	now.Store(time.Now().Add(2 * time.Hour).UnixMilli())
	srv, err := startQuiet(t, Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", NowMs: now.Load})
	if err != nil {
		t.Fatal(err)
	}
	db := observer(t, dir)
	waitFor(t, "one Run running and one queued behind it", 30*time.Second, func() bool {
		return count(t, db, runningSQL) == 1 && count(t, db, `SELECT count(*) FROM runs WHERE state = 'queued'`) == 1
	})
	var queued string
	if err := db.QueryRow(`SELECT id FROM runs WHERE state = 'queued'`).Scan(&queued); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if status, body, _ := httpcall.Bearer(t, http.MethodPost, "http://"+srv.Addr()+"/api/v1/runs/"+queued+"/cancel", token, []byte("{}")); status != http.StatusOK {
			t.Fatalf("cancel %d: %d %s", i+1, status, body)
		}
		want := map[run.State]float64{run.Succeeded: 0, run.Failed: 0, run.TimedOut: 0, run.Cancelled: 1, run.Lost: 0}
		if got := finishedCounts(t, srv.MetricsAddr()); !equalCounts(got, want) {
			t.Fatalf("after cancel %d of the queued Run: %v, want %v", i+1, got, want)
		}
	}
}

func equalCounts(a, b map[run.State]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
