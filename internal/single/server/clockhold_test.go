package server

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// thirtyDaysMs is how far behind a router's clock reads in these tests
// after a boot without a battery-backed clock.
const thirtyDaysMs = int64(30 * 24 * time.Hour / time.Millisecond)

// clockedServer is a server started on a data directory whose every-minute
// trigger's first occurrence a server with the right clock already ran, on
// a clock and an uptime the test sets.
type clockedServer struct {
	srv     *Server
	db      *sql.DB
	trigger string
	// first is the occurrence the earlier server ran, at first+1s, which is
	// the newest time the database recorded; second is the one after it.
	first, second int64
	now, up       atomic.Int64
	rounds        atomic.Int64
	logs          syncbuf.Buffer
}

// startClocked applies an every-minute trigger, has a server whose clock
// reads first+1s run the first occurrence (its Run succeeded, the cursor
// at the second) and stop, then starts the server the test watches with
// its clock at nowMs, its uptime at 0 and wait as its clock wait.
func startClocked(t *testing.T, nowMs func(first int64) int64, wait time.Duration) *clockedServer {
	t.Helper()
	return startClockedAfter(t, 0, nowMs, wait)
}

// startClockedAfter is startClocked whose earlier server, when laterMs is
// not 0, then has its clock read first+laterMs and runs the occurrence
// overdue there (a device that was off) before it stops.
func startClockedAfter(t *testing.T, laterMs int64, nowMs func(first int64) int64, wait time.Duration) *clockedServer {
	t.Helper()
	dir := installedDir(t)
	tg := publishEveryMinuteTick(t, dir, "router")
	c := &clockedServer{db: observer(t, dir), trigger: tg.TriggerID}
	c.first = time.UnixMilli(tg.CreatedAtMs).UTC().Truncate(time.Minute).Add(time.Minute).UnixMilli()
	c.second = c.first + time.Minute.Milliseconds()

	var right atomic.Int64
	right.Store(c.first + 1_000)
	before, err := Start(t.Context(), Config{DataDir: dir, NowMs: right.Load, Cadence: 250 * time.Millisecond,
		StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first occurrence's Run to succeed", 30*time.Second, func() bool {
		return c.runs(t, `scheduled_for_ms = ? AND state = 'succeeded'`, c.first) == 1 && c.cursorAt(t, c.second)
	})
	if laterMs != 0 {
		right.Store(c.first + laterMs)
		waitFor(t, "the Run of the occurrence overdue later to succeed", 30*time.Second, func() bool {
			return c.runs(t, `state = 'succeeded'`) == 2
		})
	}
	if err := before.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}

	c.now.Store(nowMs(c.first))
	c.srv, err = Start(t.Context(), Config{DataDir: dir, NowMs: c.now.Load, Uptime: func() time.Duration { return time.Duration(c.up.Load()) },
		ClockWait: wait, ClockWaitSet: true, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 1, HTTPAddr: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(&c.logs, nil)), OnRound: func(schedule.Summary) { c.rounds.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c
}

// runs counts the trigger's Runs matching where.
func (c *clockedServer) runs(t *testing.T, where string, args ...any) int {
	t.Helper()
	return count(t, c.db, `SELECT count(*) FROM runs WHERE trigger_id = ? AND `+where, append([]any{c.trigger}, args...)...)
}

// cursorAt reports whether the trigger's next fire time is ms.
func (c *clockedServer) cursorAt(t *testing.T, ms int64) bool {
	t.Helper()
	return count(t, c.db, `SELECT count(*) FROM trigger_schedules WHERE trigger_id = ? AND next_fire_at_ms = ?`, c.trigger, ms) == 1
}

// ledger counts the trigger's occurrence ledger entries.
func (c *clockedServer) ledger(t *testing.T) int {
	t.Helper()
	return count(t, c.db, `SELECT count(*) FROM occurrence_ledger WHERE trigger_id = ?`, c.trigger)
}

// logged counts the log lines of code.
func (c *clockedServer) logged(code string) int {
	return strings.Count(c.logs.String(), "code="+code+" ")
}

// roundsAfter waits for two whole scheduler rounds from now on: the
// second began after this call.
func (c *clockedServer) roundsAfter(t *testing.T, what string) {
	t.Helper()
	from := c.rounds.Load()
	waitFor(t, what, 30*time.Second, func() bool { return c.rounds.Load() >= from+2 })
}

// readyz is the server's /readyz status code and reason.
func (c *clockedServer) readyz(t *testing.T) (int, string) {
	t.Helper()
	m := movedServer{srv: c.srv}
	return m.readyz(t)
}

// TestAStartWithTheClockBehindTheDatabaseThenAJumpPastItRunsNothingExtra:
// a router that boots thirty days behind, then has its time from NTP,
// moves no cursor while its clock reads behind, and once the clock passes
// the newest time the database recorded it goes on as if nothing happened:
// no catch-up Run, no ledger entry, the next occurrence run once.
func TestAStartWithTheClockBehindTheDatabaseThenAJumpPastItRunsNothingExtra(t *testing.T) {
	t.Parallel()
	c := startClocked(t, func(first int64) int64 { return first - thirtyDaysMs }, DefaultClockWait)
	if n := c.logged(CodeClockBehindDatabase); n != 1 {
		t.Fatalf("%d %s warnings at the start, want 1:\n%s", n, CodeClockBehindDatabase, c.logs.String())
	}

	c.roundsAfter(t, "two rounds while the clock reads behind, before NTP sets it")
	c.now.Store(c.first + 2_000)
	c.roundsAfter(t, "two rounds after NTP moved the clock past the newest recorded time")
	if n := c.runs(t, `1`); n != 1 {
		t.Fatalf("%d Runs, want only the first occurrence's: the clock behind gave a catch-up Run", n)
	}
	if n := c.ledger(t); n != 0 {
		t.Fatalf("%d ledger entries, want none: the clock behind recorded occurrences that never were", n)
	}
	if !c.cursorAt(t, c.second) {
		t.Fatal("the cursor is no longer at the occurrence after the first: the clock behind moved it")
	}
	if n := c.logged(schedule.CodeClockWentBack) + c.logged(CodeClockWaitEnded); n != 0 {
		t.Fatalf("the clock behind was taken as right:\n%s", c.logs.String())
	}

	c.now.Store(c.second + 1_000)
	waitFor(t, "the next occurrence admitted", 30*time.Second, func() bool { return c.runs(t, `scheduled_for_ms = ?`, c.second) == 1 })
	if n, l := c.runs(t, `1`), c.ledger(t); n != 2 || l != 0 {
		t.Fatalf("%d Runs and %d ledger entries, want 2 and none", n, l)
	}
}

// TestAClockStillBehindTheDatabaseAfterTheWaitIsTakenAsRight: a clock that
// reads behind the database for the whole --clock-wait (a device that
// booted ahead, then was corrected) is held for that long, then taken as
// right: the next round moves the cursor back to the next occurrence from
// the clock (clock_went_back), which is then admitted.
func TestAClockStillBehindTheDatabaseAfterTheWaitIsTakenAsRight(t *testing.T) {
	t.Parallel()
	behind := int64(0)
	c := startClocked(t, func(first int64) int64 { behind = first - thirtyDaysMs; return behind }, DefaultClockWait)
	next := time.UnixMilli(behind).UTC().Truncate(time.Minute).Add(time.Minute).UnixMilli()
	c.roundsAfter(t, "two rounds while the clock reads behind")
	if !c.cursorAt(t, c.second) || c.logged(CodeClockBehindDatabase) != 1 {
		t.Fatalf("the clock behind was acted on before the wait ended:\n%s", c.logs.String())
	}

	c.up.Store(int64(DefaultClockWait - time.Second))
	c.roundsAfter(t, "two rounds a second before the wait ends")
	if !c.cursorAt(t, c.second) {
		t.Fatal("the cursor moved before the wait ended")
	}

	c.up.Store(int64(DefaultClockWait))
	waitFor(t, "the cursor moved back to the next occurrence from the clock", 30*time.Second, func() bool { return c.cursorAt(t, next) })
	if c.logged(CodeClockWaitEnded) != 1 || c.logged(schedule.CodeClockWentBack) != 1 {
		t.Fatalf("want one %s and one %s warning:\n%s", CodeClockWaitEnded, schedule.CodeClockWentBack, c.logs.String())
	}
	c.now.Store(next + 1_000)
	waitFor(t, "the occurrence from the clock admitted", 30*time.Second, func() bool { return c.runs(t, `scheduled_for_ms = ?`, next) == 1 })
}

// TestReadinessSaysTheClockIsBehindTheDatabaseWhileHeld: /readyz answers
// 503 clock_behind_database (and the readiness metric says so) while the
// clock reads behind the database, and 200 once it passed the newest
// recorded time.
func TestReadinessSaysTheClockIsBehindTheDatabaseWhileHeld(t *testing.T) {
	t.Parallel()
	c := startClocked(t, func(first int64) int64 { return first - thirtyDaysMs }, DefaultClockWait)
	if code, reason := c.readyz(t); code != http.StatusServiceUnavailable || reason != metrics.StateClockBehindDatabase {
		t.Fatalf("/readyz %d %q while the clock reads behind, want 503 %q", code, reason, metrics.StateClockBehindDatabase)
	}
	if got := c.srv.readinessState(); got != metrics.StateClockBehindDatabase {
		t.Fatalf("readiness state %q, want %q", got, metrics.StateClockBehindDatabase)
	}
	c.now.Store(c.first + 2_000)
	waitFor(t, "/readyz 200 once the clock passed the newest recorded time", 30*time.Second, func() bool {
		code, _ := c.readyz(t)
		return code == http.StatusOK
	})
	if c.logged(CodeClockCaughtUp) != 1 {
		t.Fatalf("want one %s line:\n%s", CodeClockCaughtUp, c.logs.String())
	}
}

// TestAClockSetBackWithinAMinuteIsNotHeldButFurtherIs: a running server
// whose clock NTP steps back by seconds stays ready and admits on; one set
// back further than a minute behind what the database recorded is held.
func TestAClockSetBackWithinAMinuteIsNotHeldButFurtherIs(t *testing.T) {
	t.Parallel()
	c := startClocked(t, func(first int64) int64 { return first + 1_000 }, DefaultClockWait)
	c.roundsAfter(t, "two rounds with the clock right")
	c.now.Store(c.first + 1_000 - 30_000)
	c.roundsAfter(t, "two rounds after the clock went back 30 s")
	if code, reason := c.readyz(t); code != http.StatusOK || c.logged(CodeClockBehindDatabase) != 0 {
		t.Fatalf("/readyz %d %q after a 30 s step back, want 200 and no hold:\n%s", code, reason, c.logs.String())
	}
	c.now.Store(c.first - 5*time.Minute.Milliseconds())
	waitFor(t, "/readyz to say clock_behind_database after a step back of minutes", 30*time.Second, func() bool {
		_, reason := c.readyz(t)
		return reason == metrics.StateClockBehindDatabase
	})
	if n := c.logged(CodeClockBehindDatabase); n != 1 {
		t.Fatalf("%d %s warnings, want 1:\n%s", n, CodeClockBehindDatabase, c.logs.String())
	}
}

// TestRetentionDeletesNothingWhileTheClockReadsBehindTheDatabase: a
// retention batch, which ages Runs by the clock, deletes nothing while the
// clock reads behind the database, and deletes again once it passed the
// newest recorded time.
func TestRetentionDeletesNothingWhileTheClockReadsBehindTheDatabase(t *testing.T) {
	t.Parallel()
	const tenDaysMs = thirtyDaysMs / 3
	c := startClockedAfter(t, tenDaysMs, func(first int64) int64 { return first + tenDaysMs/2 }, DefaultClockWait)
	batch := func() retention.Result {
		t.Helper()
		res, err := heldRetention{Store: c.srv.store.Retention(c.srv.layout.Logs), s: c.srv}.RetentionBatch(t.Context(),
			retention.Batch{Kind: retention.KindRuns, OlderThan: 24 * time.Hour, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := batch(); res.Deleted.Runs != 0 || c.runs(t, `1`) != 2 {
		t.Fatalf("a batch deleted %d Runs while the clock read behind the database, want none", res.Deleted.Runs)
	}
	c.now.Store(c.first + tenDaysMs + 2_000)
	waitFor(t, "/readyz 200 once the clock passed the newest recorded time", 30*time.Second, func() bool {
		code, _ := c.readyz(t)
		return code == http.StatusOK
	})
	if res := batch(); res.Deleted.Runs != 1 || c.runs(t, `scheduled_for_ms = ?`, c.first) != 0 {
		t.Fatalf("a batch deleted %d Runs once the clock was right, want the first occurrence's", res.Deleted.Runs)
	}
}
