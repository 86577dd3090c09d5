package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// perTriggerFamilies are the families --metrics-per-trigger adds.
var perTriggerFamilies = []string{
	"qinglong_trigger_last_success_timestamp_seconds", "qinglong_trigger_last_run_timestamp_seconds",
	"qinglong_trigger_next_fire_timestamp_seconds", "qinglong_triggers_left_out",
}

// Without --metrics-per-trigger a server exports no series naming a
// trigger; the same server given it does.
func TestPerTriggerMetricsAreOffByDefault(t *testing.T) {
	t.Parallel()
	for _, perTrigger := range []int{0, 2} {
		dir := installedDir(t)
		publishHourly(t, dir, 2, "true")
		srv, err := startQuiet(t, Config{DataDir: dir, MetricsAddr: "127.0.0.1:0", MetricsPerTrigger: perTrigger})
		if err != nil {
			t.Fatal(err)
		}
		m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
		for _, name := range perTriggerFamilies {
			// The next fire time appears once a round initialised the
			// schedule, which a scrape at start may precede.
			if _, present := m[name]; present != (perTrigger > 0) && (perTrigger == 0 || name != perTriggerFamilies[2]) {
				t.Errorf("with --metrics-per-trigger %d, %s present: %v", perTrigger, name, present)
			}
		}
	}
}

// Given more triggers than --metrics-per-trigger, a server exports the
// first by project then trigger name, says how many it left out, and warns
// once under its code.
func TestPerTriggerMetricsExportAtMostTheCap(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	publishHourly(t, dir, 3, "true")
	var logs lockedBuffer
	srv, err := startQuiet(t, Config{DataDir: dir, MetricsAddr: "127.0.0.1:0", MetricsPerTrigger: 2, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
	for _, name := range perTriggerFamilies[:2] {
		if got := strings.Join(m.LabelValues(name, "trigger"), ","); got != "h0,h1" {
			t.Errorf("%s exports triggers %q, want h0,h1 (the first 2 by name)", name, got)
		}
	}
	if got := m.Value(t, "qinglong_triggers_left_out"); got != 1 {
		t.Errorf("qinglong_triggers_left_out = %g, want 1 (h2)", got)
	}
	if n := strings.Count(logs.String(), "code="+metrics.CodePerTriggerCapped); n != 1 || !strings.Contains(logs.String(), "left_out=1") {
		t.Errorf("the cap was warned about %d times, want once with left_out=1:\n%s", n, logs.String())
	}
}

// A trigger whose Runs succeeded, then failed, shows the end of its last
// succeeded Run as its last success and the creation of the failed one as
// its last Run, in the server's clock: an alert on time() minus the last
// success sees it age while the trigger keeps running.
func TestATriggerThatStopsSucceedingShowsItsLastSuccess(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	marker := filepath.Join(t.TempDir(), "broken")
	publishHourly(t, dir, 1, fmt.Sprintf("if [ -e %s ]; then exit 1; fi", marker))
	var now atomic.Int64
	now.Store(time.Now().Add(2 * time.Hour).Truncate(time.Hour).Add(10 * time.Minute).UnixMilli())
	srv, err := Start(t.Context(), Config{DataDir: dir, MetricsAddr: "127.0.0.1:0", MetricsPerTrigger: 5, NowMs: now.Load,
		Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	db := observer(t, dir)
	waitFor(t, "the first Run succeeded", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE state = 'succeeded'`) == 1
	})
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	now.Add(time.Hour.Milliseconds())
	waitFor(t, "the next hour's Run failed", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE state = 'failed'`) == 1
	})
	succeededAt := count(t, db, `SELECT finished_at_ms FROM runs WHERE state = 'succeeded'`)
	failedCreatedAt := count(t, db, `SELECT created_at_ms FROM runs WHERE state = 'failed'`)
	nextDue := count(t, db, `SELECT next_fire_at_ms + due_offset_ms FROM trigger_schedules`)
	m := metricstest.Scrape(t, "http://"+srv.MetricsAddr()+"/metrics")
	for name, want := range map[string]int{
		"qinglong_trigger_last_success_timestamp_seconds": succeededAt,
		"qinglong_trigger_last_run_timestamp_seconds":     failedCreatedAt,
		"qinglong_trigger_next_fire_timestamp_seconds":    nextDue,
	} {
		if got := m.Value(t, name, "project", "hourly", "trigger", "h0"); got != float64(want)/1000 {
			t.Errorf("%s = %g, want %g", name, got, float64(want)/1000)
		}
	}
	if success, last := m.Value(t, perTriggerFamilies[0], "trigger", "h0"), m.Value(t, perTriggerFamilies[1], "trigger", "h0"); last-success < 3000 {
		t.Errorf("last Run %g s, last success %g s: want the failed Run an hour after the success", last, success)
	}
}
