package sqlitestore

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A file an older build wrote, with a backfill's Runs queued before a
// clock Run, keeps them behind it once migrated: the migration marks the
// attempts the dispatcher still reads of every Run a backfill made.
func TestMigratingPutsTheBackfilledRunsAlreadyQueuedBehindTheOthers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0033-backfill-dispatched-last")
	// This build's backfill writes the marks; the older build's had none,
	// so the columns go, cleared, before the file is migrated.
	for _, table := range []string{"attempts", "runs"} {
		if err := e.tamper(ctx, `ALTER TABLE `+table+` ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0`); err != nil {
			t.Fatal(err)
		}
	}
	undoPlace, uncap := placeLater(t, e), projectCapLater(t, e)
	d := e.defs(t, "history", everyMinute)
	now := e.clock.NowMs()
	res, err := e.store.TriggerBackfill(ctx, schedule.BackfillRequest{
		TriggerID: d.Trigger.TriggerID, FromMs: now - time.Hour.Milliseconds(), ToMs: now - 30*time.Minute.Milliseconds() - 1})
	if err != nil || res.Admitted != 30 {
		t.Fatalf("backfill %+v, %v; want 30 Runs", res, err)
	}
	clock := e.admit(t, e.defs(t, "clock", everyMinute).Trigger.TriggerID)
	for _, table := range []string{"attempts", "runs"} {
		if err := e.tamper(ctx, `ALTER TABLE `+table+` DROP COLUMN backfilled`); err != nil {
			t.Fatal(err)
		}
	}
	undoPlace()
	uncap()
	if _, err := e.store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := append([]string{clock}, res.RunIDs...)
	if got := e.pendingOrder(t, 31); !slices.Equal(got, want) {
		t.Fatalf("after the migration the dispatcher's queue is %v,\nwant the clock's Run before the backfill's %v", got, want)
	}
}

// A file an older build wrote, with a backfill's Runs queued before a
// clock Run, reads its oldest queued ages apart once migrated: the
// migration marks the unfinished Runs a backfill made, so the clock Run's
// wait is the oldest queued and the backfill's its own.
func TestMigratingMarksTheQueuedBackfilledRunsForTheirOwnAge(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0034-runs-backfilled")
	// This build's backfill writes the Run's mark; the older build's had
	// none, so the column goes, cleared, before the file is migrated.
	if err := e.tamper(ctx, `ALTER TABLE runs ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0`); err != nil {
		t.Fatal(err)
	}
	undoPlace, uncap := placeLater(t, e), projectCapLater(t, e)
	d := e.defs(t, "history", everyMinute)
	now := e.clock.NowMs()
	res, err := e.store.TriggerBackfill(ctx, schedule.BackfillRequest{
		TriggerID: d.Trigger.TriggerID, FromMs: now - time.Hour.Milliseconds(), ToMs: now - 30*time.Minute.Milliseconds() - 1})
	if err != nil || res.Admitted != 30 {
		t.Fatalf("backfill %+v, %v; want 30 Runs", res, err)
	}
	clock := e.admit(t, e.defs(t, "clock", everyMinute).Trigger.TriggerID)
	if err := e.tamper(ctx, `ALTER TABLE runs DROP COLUMN backfilled`); err != nil {
		t.Fatal(err)
	}
	undoPlace()
	uncap()
	if _, err := e.store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	snap, err := e.store.Monitor(ctx, schedule.MonitorLimit)
	if err != nil {
		t.Fatal(err)
	}
	clockAt, err := e.store.RunGet(ctx, clock)
	if err != nil {
		t.Fatal(err)
	}
	backfillAt, err := e.store.RunGet(ctx, res.RunIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	if snap.OldestQueuedAtMs == nil || *snap.OldestQueuedAtMs != clockAt.Run.QueuedAtMs ||
		snap.OldestBackfillQueuedAtMs == nil || *snap.OldestBackfillQueuedAtMs != backfillAt.Run.QueuedAtMs {
		t.Fatalf("after the migration the oldest queued at %v and backfilled at %v; want %d (the clock Run) and %d (the backfill's)",
			snap.OldestQueuedAtMs, snap.OldestBackfillQueuedAtMs, clockAt.Run.QueuedAtMs, backfillAt.Run.QueuedAtMs)
	}
}
