package server

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// gapServer is a server on an every-minute fire_once trigger whose first
// occurrence it admitted, on a wall clock and a monotonic clock the test
// moves.
type gapServer struct {
	first   int64
	now, up atomic.Int64
	rounds  atomic.Int64
	logs    syncbuf.Buffer
}

func startGapServer(t *testing.T) *gapServer {
	t.Helper()
	dir := installedDir(t)
	tg := publishEveryMinuteTick(t, dir, "laptop")
	g := &gapServer{first: time.UnixMilli(tg.CreatedAtMs).UTC().Truncate(time.Minute).Add(time.Minute).UnixMilli()}
	g.now.Store(g.first + 1_000)
	srv, err := Start(t.Context(), Config{DataDir: dir, NowMs: g.now.Load, Uptime: func() time.Duration { return time.Duration(g.up.Load()) },
		Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 1,
		Logger: slog.New(slog.NewTextHandler(&g.logs, nil)), OnRound: func(schedule.Summary) { g.rounds.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	db := observer(t, dir)
	waitFor(t, "the first occurrence admitted", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE trigger_id = ? AND scheduled_for_ms = ?`, tg.TriggerID, g.first) == 1
	})
	from := g.rounds.Load()
	waitFor(t, "two rounds on a clock that does not move", 30*time.Second, func() bool { return g.rounds.Load() >= from+2 })
	return g
}

// away moves the wall clock three minutes on, and the monotonic clock by
// monotonic, then waits for the warning.
func (g *gapServer) away(t *testing.T, monotonic time.Duration) string {
	t.Helper()
	g.up.Add(int64(monotonic))
	g.now.Store(g.first + 3*time.Minute.Milliseconds() + 1_000)
	waitFor(t, "the gap's warning", 30*time.Second, func() bool { return strings.Contains(g.logs.String(), "code="+CodeSchedulerGap) })
	from := g.rounds.Load()
	waitFor(t, "two rounds after the gap", 30*time.Second, func() bool { return g.rounds.Load() >= from+2 })
	logs := g.logs.String()
	if n := strings.Count(logs, "code="+CodeSchedulerGap); n != 1 {
		t.Fatalf("%d %s warnings, want one for the one gap:\n%s", n, CodeSchedulerGap, logs)
	}
	return regexp.MustCompile(`(?m)^.*code=` + regexp.QuoteMeta(CodeSchedulerGap) + ` .*$`).FindString(logs)
}

// TestRoundsThatStopForMinutesAreWarnedOfWithWhatTheirMisfirePolicyPassedOver:
// a server stopped for three minutes (SIGSTOP: both clocks go on) finds an
// every-minute fire_once trigger's three occurrences of the gap overdue,
// admits the oldest and collapses the other two, and says so in one
// warning at WARN — how long it was away, that the process did not run,
// and the counts — pointing to PASSED OVER; ordinary rounds warn nothing.
func TestRoundsThatStopForMinutesAreWarnedOfWithWhatTheirMisfirePolicyPassedOver(t *testing.T) {
	t.Parallel()
	g := startGapServer(t)
	if strings.Contains(g.logs.String(), CodeSchedulerGap) {
		t.Fatalf("ordinary rounds were taken for a gap:\n%s", g.logs.String())
	}
	line := g.away(t, 3*time.Minute)
	for _, want := range []string{"level=WARN", "away_ms=180000", "monotonic_ms=180000", "cause=" + gapNotRunning,
		"admitted=1", "collapsed=2", "skipped=0", "past_catch_up_window=0", "PASSED OVER"} {
		if !strings.Contains(line, want) {
			t.Errorf("the gap's warning lacks %q:\n%s", want, line)
		}
	}
}

// TestAGapTheMonotonicClockDidNotSeeIsCalledASuspend: Linux's monotonic
// clock stops while the machine sleeps, so a gap on the wall clock alone
// is named a suspend (or a clock set forward), not a stopped process.
func TestAGapTheMonotonicClockDidNotSeeIsCalledASuspend(t *testing.T) {
	t.Parallel()
	g := startGapServer(t)
	line := g.away(t, 0)
	if !strings.Contains(line, "cause="+gapSuspended) || !strings.Contains(line, "monotonic_ms=0") {
		t.Fatalf("the gap's warning does not call it a suspend:\n%s", line)
	}
}
