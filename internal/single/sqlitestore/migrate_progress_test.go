package sqlitestore

import (
	"slices"
	"testing"
)

// Upgrading a file with a history of Runs says each step of a pending
// migration that reads every Run or attempt before it starts — an index
// it builds over runs or attempts, a column it adds to either — naming
// the index or the column, the migration and how many Runs the file
// holds: such a step over a million Runs takes seconds to minutes, in
// one transaction with nothing else to show for it.
func TestAMigrationSaysEachStepThatReadsEveryRunOrAttemptFirst(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0032-runs-finished-state")
	// This build's admission writes the backfill marks; the older build
	// had none, so the columns go before the file is migrated.
	for _, table := range []string{"attempts", "runs"} {
		if err := e.tamper(ctx, `ALTER TABLE `+table+` ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0`); err != nil {
			t.Fatal(err)
		}
	}
	undoPlace, uncap := placeLater(t, e), projectCapLater(t, e)
	d := e.defs(t, "history", everyMinute)
	e.admit(t, d.Trigger.TriggerID)
	for _, table := range []string{"attempts", "runs"} {
		if err := e.tamper(ctx, `ALTER TABLE `+table+` DROP COLUMN backfilled`); err != nil {
			t.Fatal(err)
		}
	}
	undoPlace()
	uncap()
	var said []LongStep
	if _, err := e.store.migrateSaying(ctx, Stream(), func(b LongStep) { said = append(said, b) }, 1); err != nil {
		t.Fatal(err)
	}
	want := []LongStep{
		{Migration: "sqlite-0032-runs-finished-state", Index: "runs_finished_state", Runs: 1},
		{Migration: "sqlite-0032-runs-finished-state", Index: "runs_project_finished_state", Runs: 1},
		{Migration: "sqlite-0033-backfill-dispatched-last", Column: "attempts.backfilled", Runs: 1},
		{Migration: "sqlite-0033-backfill-dispatched-last", Index: "attempts_pending", Runs: 1},
		{Migration: "sqlite-0034-runs-backfilled", Column: "runs.backfilled", Runs: 1},
		{Migration: "sqlite-0034-runs-backfilled", Index: "runs_queued_since", Runs: 1},
		{Migration: "sqlite-0035-runs-trigger-finished-state", Index: "runs_trigger_finished_state", Runs: 1},
		{Migration: "sqlite-0036-cancel-previous-takes-place", Column: "attempts.place_of", Runs: 1},
		{Migration: "sqlite-0036-cancel-previous-takes-place", Index: "attempts_pending", Runs: 1},
		{Migration: "sqlite-0037-runs-rerun-of", Index: "runs_rerun_of", Runs: 1},
		{Migration: "sqlite-0048-attempts-project", Column: "attempts.project_id", Runs: 1},
		{Migration: "sqlite-0048-attempts-project", Index: "attempts_pending_project", Runs: 1},
	}
	if !slices.Equal(said, want) {
		t.Fatalf("the migration said %+v;\nwant %+v", said, want)
	}
}
