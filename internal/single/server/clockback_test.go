package server

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// TestATriggerAClockSetBackLeftWaitingFiresAtItsNextOccurrenceFromNow: a
// server whose clock read ten years ahead admits an every-minute
// trigger's first occurrence and moves its cursor ten years on; once the
// clock is set back (before that occurrence), the next round moves the
// cursor back to the occurrence, which is passed over as clock_went_back
// when the clock reaches it (it has its Run), and the occurrence after it
// is admitted — no restart, no republish, one warning.
func TestATriggerAClockSetBackLeftWaitingFiresAtItsNextOccurrenceFromNow(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tg := publishEveryMinuteTick(t, dir, "clock")
	first := time.UnixMilli(tg.CreatedAtMs).UTC().Truncate(time.Minute).Add(time.Minute).UnixMilli()
	second := first + time.Minute.Milliseconds()
	ahead := first + 10*365*24*time.Hour.Milliseconds()

	var now atomic.Int64
	now.Store(ahead)
	var logs syncbuf.Buffer
	// No clock wait: the clock set back is taken as right at once, as
	// after a wait that ended (clockhold_test.go holds the wait).
	srv, err := Start(t.Context(), Config{DataDir: dir, NowMs: now.Load, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout,
		ClockWaitSet: true, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	db := observer(t, dir)
	cursorAt := func(ms int64) func() bool {
		return func() bool {
			return count(t, db, `SELECT count(*) FROM trigger_schedules WHERE trigger_id = ? AND next_fire_at_ms = ?`, tg.TriggerID, ms) == 1
		}
	}
	waitFor(t, "the first occurrence admitted while the clock read ten years ahead", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE trigger_id = ? AND scheduled_for_ms = ?`, tg.TriggerID, first) == 1 &&
			count(t, db, `SELECT count(*) FROM trigger_schedules WHERE trigger_id = ? AND next_fire_at_ms > ?`, tg.TriggerID, ahead) == 1
	})

	now.Store(first - 30_000)
	waitFor(t, "the cursor moved back to the first occurrence", 30*time.Second, cursorAt(first))
	now.Store(first + 1_000)
	waitFor(t, "the first occurrence passed over, its Run being there", 30*time.Second, func() bool {
		return cursorAt(second)() && count(t, db, `SELECT count(*) FROM occurrence_ledger WHERE trigger_id = ? AND reason = ? AND first_scheduled_at_ms = ? AND occurrence_count = 1`,
			tg.TriggerID, string(schedule.PassClockWentBack), first) == 1
	})
	now.Store(second + 1_000)
	waitFor(t, "the occurrence after it admitted", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE trigger_id = ? AND scheduled_for_ms = ?`, tg.TriggerID, second) == 1
	})
	if n := count(t, db, `SELECT count(*) FROM runs WHERE trigger_id = ?`, tg.TriggerID); n != 2 {
		t.Fatalf("%d Runs, want 2: the first occurrence once, and the one after it", n)
	}
	if n := strings.Count(logs.String(), "code="+schedule.CodeClockWentBack); n != 1 {
		t.Fatalf("%d clock_went_back warnings, want 1:\n%s", n, logs.String())
	}
}

// publishEveryMinuteTick publishes, into the installed data directory
// dir, project name with an every-minute trigger "tick" (UTC, fire_once)
// of a task that runs true, and returns the trigger.
func publishEveryMinuteTick(t *testing.T, dir, name string) trigger.Revision {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "true", TimeoutMs: time.Minute.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(),
		trigger.Spec{Name: "tick", Enabled: true, Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	return tg
}
