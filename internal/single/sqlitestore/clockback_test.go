package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A check for rows a clock that went back left ahead that finds none to
// move — every row written before now, or written later with its cursor
// already on the next occurrence from now, as a clock stepped back by
// less than a minute leaves it — takes no write lock and writes nothing:
// while another process holds the lock it answers at once, and every row
// keeps its version.
func TestACheckThatFindsNothingToMoveNeitherWaitsForTheWriteLockNorWrites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	now := e.defs(t, "now", everyMinute)
	stepped := e.defs(t, "stepped", everyMinute)
	e.initialiseAll(t)
	if err := e.tamper(ctx, `UPDATE trigger_schedules SET updated_at_ms = ? WHERE trigger_id = ?`,
		e.clock.NowMs()+30_000, stepped.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	before := map[string]int64{}
	for _, id := range []string{now.Trigger.TriggerID, stepped.Trigger.TriggerID} {
		before[id] = e.version(t, id)
	}
	conn, err := e.raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // the lock only has to end
	// The lock is held until the test rolls back: a check that waited
	// for it would end with its context's deadline.
	check, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	moved, err := e.store.ScheduleReanchor(check)
	if err != nil || len(moved) != 0 {
		t.Fatalf("a check with nothing to move, under another process's write lock: moved %+v, %v; want nothing and no error", moved, err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	for id, v := range before {
		if got := e.version(t, id); got != v {
			t.Fatalf("the check changed row %s from version %d to %d", id, v, got)
		}
	}
}

// version is the state version of a trigger's schedule row.
func (e *env) version(t *testing.T, triggerID string) int64 {
	t.Helper()
	r, err := e.row(t.Context(), triggerID)
	if err != nil {
		t.Fatal(err)
	}
	return r.StateVersion
}

// Migrating a file an older build wrote keeps every entry of its
// occurrence ledger and of its compacted ledger, whatever its reason, and
// the rebuilt tables take the reason a clock that went back records.
func TestTheClockWentBackMigrationKeepsEveryLedgerEntry(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := envBefore(t, "sqlite-0024-clock-went-back")
	s := e.store
	undo, untitle, uncap := projectPauseLater(t, e), titlesLater(t, e), projectCapLater(t, e)
	id := e.defs(t, "alpha", everyMinute).Trigger.TriggerID
	undo()
	untitle()
	uncap()
	reasons := []string{"misfire", "collapsed", "catch_up_window", "paused", "outside_bounds", "disabled", "overlap", "republished", "project_archived"}
	for i, r := range reasons {
		first := int64(1_000_000 + 60_000*i)
		if err := e.tamper(ctx, `INSERT INTO occurrence_ledger VALUES (?, ?, 1, ?, ?, ?, 2, ?, ?)`,
			id, i+1, r, first, first+60_000, i%2, 5_000+i); err != nil {
			t.Fatalf("ledger entry %s: %v", r, err)
		}
		if err := e.tamper(ctx, `INSERT INTO occurrence_ledger_compacted VALUES (?, ?, 1, ?, ?, ?, ?, ?)`,
			id, r, first, first+120_000, 3+i, i%2, 6_000+i); err != nil {
			t.Fatalf("compacted entry %s: %v", r, err)
		}
	}
	older := ledgerRows(t, e.raw)
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("ready after the migration: %v", err)
	}
	if got := ledgerRows(t, e.raw); !slices.Equal(got, older) {
		t.Fatalf("the ledger after the migration:\n%v\nwant the older build's:\n%v", got, older)
	}
	if err := e.tamper(ctx, `INSERT INTO occurrence_ledger VALUES (?, ?, 1, 'clock_went_back', 1, 1, 1, 0, 1)`, id, len(reasons)+1); err != nil {
		t.Fatalf("the ledger refuses clock_went_back: %v", err)
	}
	if err := e.tamper(ctx, `INSERT INTO occurrence_ledger_compacted VALUES (?, 'clock_went_back', 1, 1, 1, 1, 0, 1)`, id); err != nil {
		t.Fatalf("the compacted ledger refuses clock_went_back: %v", err)
	}
}

// ledgerRows is every column of both ledgers' rows, in key order.
func ledgerRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'entry', trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms
			FROM occurrence_ledger ORDER BY trigger_id, seq`,
		`SELECT 'compacted', trigger_id, 0, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms
			FROM occurrence_ledger_compacted ORDER BY trigger_id, reason`,
	} {
		rows, err := db.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var kind, trigger, reason string
			var seq, rev, first, last, count, atLeast, recorded int64
			if err := rows.Scan(&kind, &trigger, &seq, &rev, &reason, &first, &last, &count, &atLeast, &recorded); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint([]any{kind, trigger, seq, rev, reason, first, last, count, atLeast, recorded}))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if len(out) == 0 {
		t.Fatal("the ledgers are empty")
	}
	return out
}

// A wait the take passes an unreadable row over for that ends more than
// schedule.UnreadableRecheck from now (written while the clock read later)
// is ended by the check, so the row is taken again at once instead of when
// the clock gets there again; a wait written now is kept.
func TestACheckEndsTheWaitsOfUnreadableRowsWrittenWhileTheClockReadLater(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	later := e.defs(t, "later", everyMinute)
	now := e.defs(t, "now", everyMinute)
	e.initialiseAll(t)
	waits := map[string]int64{
		later.Trigger.TriggerID: e.clock.NowMs() + 10*365*24*time.Hour.Milliseconds(),
		now.Trigger.TriggerID:   e.clock.NowMs() + schedule.UnreadableRecheck.Milliseconds(),
	}
	for id, until := range waits {
		e.due(t, id, 1_000)
		if err := e.tamper(ctx, `UPDATE trigger_schedules SET recheck_at_ms = ?, recheck_state_version = state_version WHERE trigger_id = ?`, until, id); err != nil {
			t.Fatal(err)
		}
	}
	if tks := e.take(t, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows waiting out a recheck, want none", len(tks))
	}
	moved, err := e.store.ScheduleReanchor(ctx)
	if err != nil || len(moved) != 0 {
		t.Fatalf("check: moved %+v, %v; want no cursor moved", moved, err)
	}
	tks := e.take(t, schedule.MaxPageSize)
	if len(tks) != 1 || tks[0].TriggerID != later.Trigger.TriggerID {
		t.Fatalf("after the check the take returned %d rows %v, want only %s, whose wait ended years ahead", len(tks), tks, later.Trigger.TriggerID)
	}
}

// initialiseAll takes and commits every new row's first decision, so each
// has a cursor.
func (e *env) initialiseAll(t *testing.T) {
	t.Helper()
	for _, tk := range e.take(t, schedule.MaxPageSize) {
		if res, err := e.commit(t, commitParams(t, tk)); err != nil || res.Outcome != schedule.Initialized {
			t.Fatalf("first decision of %s: %+v, %v", tk.TriggerID, res, err)
		}
	}
}
