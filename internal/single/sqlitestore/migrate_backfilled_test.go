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
	// This build's backfill writes the mark; the older build's had none,
	// so the column goes, cleared, before the file is migrated.
	if err := e.tamper(ctx, `ALTER TABLE attempts ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0`); err != nil {
		t.Fatal(err)
	}
	d := e.defs(t, "history", everyMinute)
	now := e.clock.NowMs()
	res, err := e.store.TriggerBackfill(ctx, schedule.BackfillRequest{
		TriggerID: d.Trigger.TriggerID, FromMs: now - time.Hour.Milliseconds(), ToMs: now - 30*time.Minute.Milliseconds() - 1})
	if err != nil || res.Admitted != 30 {
		t.Fatalf("backfill %+v, %v; want 30 Runs", res, err)
	}
	clock := e.admit(t, e.defs(t, "clock", everyMinute).Trigger.TriggerID)
	if err := e.tamper(ctx, `ALTER TABLE attempts DROP COLUMN backfilled`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := append([]string{clock}, res.RunIDs...)
	if got := e.pendingOrder(t, 31); !slices.Equal(got, want) {
		t.Fatalf("after the migration the dispatcher's queue is %v,\nwant the clock's Run before the backfill's %v", got, want)
	}
}
