package server

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// publishHourly writes n hourly triggers running script into dataDir's
// database.
func publishHourly(t *testing.T, dataDir string, n int, script string) {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := project.Project{ID: ids.New(), Name: "hourly", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	hourly := trigger.Cron{Expression: "0 * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	for i := range n {
		if _, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: fmt.Sprintf("h%d", i), Enabled: true, Cron: hourly}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMetricsScrapedFromAStandaloneServerMatchTheDatabase: after a known
// workload — five hourly triggers first decided two hours after they were
// published (each admits its first occurrence and passes the next over as
// collapsed), one command at a time that does not end — the /metrics a
// Prometheus server scrapes, read with Prometheus's text parser, agree with
// the database: decisions admitted and Runs, passed occurrences and the
// ledger, the lag and the Runs' due times, unfinished Runs by state, how
// long the oldest queued Run has waited, the backlog and readiness.
func TestMetricsScrapedFromAStandaloneServerMatchTheDatabase(t *testing.T) {
	t.Parallel()
	const triggers = 5
	dir := installedDir(t)
	publishHourly(t, dir, triggers, "sleep 300")
	// Ten minutes past the hour two hours on: the two hourly occurrences
	// since publishing are due, and the minute the clock moves before the
	// scrape reaches no further one.
	var now atomic.Int64
	now.Store(time.Now().Add(2 * time.Hour).Truncate(time.Hour).Add(10 * time.Minute).UnixMilli())
	var rounds atomic.Int32
	srv, err := startQuiet(t, Config{DataDir: dir, MetricsAddr: "127.0.0.1:0", NowMs: now.Load,
		OnRound: func(schedule.Summary) { rounds.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	db := observer(t, dir)
	waitFor(t, "every Run admitted and one command running", 30*time.Second, func() bool {
		return rounds.Load() > 0 && count(t, db, `SELECT count(*) FROM runs`) == triggers && count(t, db, runningSQL) == 1 &&
			count(t, db, `SELECT count(*) FROM runs WHERE state = 'queued'`) == triggers-1
	})
	// Rounds counted before the scrape: a round ends (OnRound) after its
	// metrics are recorded, but one may end between the scrape and a later
	// read (the commit watch wakes one for the server's own commits).
	roundsBefore := rounds.Load()
	// A minute passes while the 4 Runs wait for the one slot of
	// --concurrency.
	now.Add(time.Minute.Milliseconds())
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")

	if got := m.Value(t, "qinglong_scheduler_decisions_total", "outcome", "admitted"); got != triggers {
		t.Errorf("decisions admitted: %g, want %d (the Runs in the database)", got, triggers)
	}
	collapsed := count(t, db, `SELECT coalesce(sum(occurrence_count), 0) FROM occurrence_ledger WHERE reason = 'collapsed'`)
	if got := m.Value(t, "qinglong_scheduler_occurrences_passed_total", "reason", "collapsed"); collapsed < triggers || got != float64(collapsed) {
		t.Errorf("occurrences passed as collapsed: %g; the ledger holds %d (want at least one per trigger)", got, collapsed)
	}
	// Every Run is a catch-up, admitted an hour and more after its due
	// time: none is on-time admission lag.
	lagCount, lagSum := m.Histogram(t, "qinglong_scheduler_catch_up_lag_seconds")
	if want := float64(count(t, db, `SELECT sum(created_at_ms - due_at_ms) FROM runs`)) / 1000; lagCount != triggers || math.Abs(lagSum-want) > 1e-6 {
		t.Errorf("catch-up lag: %d samples summing %gs; want %d summing %gs (each Run's creation minus its due time)", lagCount, lagSum, triggers, want)
	}
	if onTime, _ := m.Histogram(t, "qinglong_scheduler_admission_lag_seconds"); onTime != 0 {
		t.Errorf("admission lag: %d samples; want none, every admission a catch-up", onTime)
	}
	for _, st := range schedule.UnfinishedStates {
		want := count(t, db, `SELECT count(*) FROM runs WHERE state = ?`, string(st))
		if got := m.Value(t, "qinglong_runs", "state", string(st)); got != float64(want) {
			t.Errorf("qinglong_runs{state=%q} = %g, the database holds %d", st, got, want)
		}
	}
	// The oldest of the Runs waiting for the slot has waited the server's
	// clock minus its queue time: the minute that passed.
	queuedAt := count(t, db, `SELECT min(queued_at_ms) FROM runs WHERE state = 'queued'`)
	if got, want := m.Value(t, "qinglong_runs_oldest_queued_age_seconds"), float64(now.Load()-int64(queuedAt))/1000; got != want || want < 60 {
		t.Errorf("oldest queued age %gs, want %gs (the server's clock minus the oldest queued Run's queue time, at least the minute that passed)", got, want)
	}
	if claims, _ := m.Histogram(t, "qinglong_scheduler_claim_duration_seconds"); claims < uint64(roundsBefore) {
		t.Errorf("%d claims observed for %d rounds", claims, roundsBefore)
	}
	if commits, _ := m.Histogram(t, "qinglong_scheduler_commit_duration_seconds"); commits == 0 {
		t.Error("no commit duration observed")
	}
	for name, want := range map[string]float64{
		"qinglong_schedule_due_rows": 0, "qinglong_schedule_oldest_due_age_seconds": 0, "qinglong_ready": 1,
		"qinglong_attempts_lost_total": 0, "qinglong_monitor_read_failures_total": 0,
	} {
		if got := m.Value(t, name); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	if got := m.Value(t, "qinglong_readiness_state", "state", "ready"); got != 1 {
		t.Errorf("readiness_state{state=ready} = %g, want 1", got)
	}
	if got := m.Value(t, "qinglong_info", "profile", "standalone"); got != 1 {
		t.Errorf("qinglong_info{profile=standalone} = %g", got)
	}
}

// TestAStandaloneServerCountsFailedAuthenticationsInItsMetrics: the API's
// and the console's failed authentications reach /metrics on the
// standalone profile too (it has no worker ingress).
func TestAStandaloneServerCountsFailedAuthenticationsInItsMetrics(t *testing.T) {
	t.Parallel()
	srv, err := startQuiet(t, Config{DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"not-a-token", apitoken.Prefix + strings.Repeat("A", 43)} {
		if status, _, _ := httpcall.Bearer(t, http.MethodGet, "http://"+srv.Addr()+"/api/v1/runs", token, nil); status != http.StatusUnauthorized {
			t.Fatalf("token %q: %d, want 401", token, status)
		}
	}
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
	for labels, want := range map[[2]string]float64{
		{"api", "malformed"}: 1, {"api", "unknown"}: 1, {"api", "throttled"}: 0, {"console", "unknown"}: 0,
	} {
		if got := m.Value(t, "qinglong_auth_failures_total", "surface", labels[0], "reason", labels[1]); got != want {
			t.Errorf("qinglong_auth_failures_total{surface=%q,reason=%q} = %g, want %g", labels[0], labels[1], got, want)
		}
	}
	if got := m.Sum("qinglong_auth_failures_total", "surface", "worker"); got != 0 {
		t.Errorf("worker series on a standalone server: %g", got)
	}
}
