package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// clockAheadMs is how far ahead the database clock read when this file's
// rows were written "later": ten years, a server clock set from a bad NTP
// source and then set back.
const clockAheadMs = 10 * 365 * 24 * 3600 * 1000

// A claim taken while the database clock read later holds a lease that
// runs out only when the clock gets back there. The check gives it back,
// whether the row's cursor moves (a replica that died holding it) or not
// (an uninitialised row, whose holder is still deciding): another replica
// can claim each row once it is due, at once for the uninitialised one,
// and the holder's commit after the check is refused by its own fence and
// writes nothing. The check wakes the schedulers.
func TestAClaimTakenWhileTheClockReadLaterIsGivenBackByTheCheck(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	b := s.openRuntime(t, "replica-b", testLease)
	ctx := t.Context()

	// dead: initialised, then claimed by a replica while the clock read
	// later, with its cursor computed from that reading; that replica died.
	dead := s.publish(t, "dead")
	s.initialiseAll(t, s.runtime, 1)
	if err := s.tamper(ctx, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` + $2, due_offset_ms = 0, claim_owner = 'replica-gone', claim_token = gen_random_uuid(),
		    claim_version = claim_version + 1, claim_expires_at_ms = `+ClockMsSQL+` + $2 + 30000, updated_at_ms = `+ClockMsSQL+` + $2,
		    state_version = state_version + 1
		WHERE trigger_id = $1`, dead.trigger.TriggerID, int64(clockAheadMs)); err != nil {
		t.Fatal(err)
	}
	// held: uninitialised, claimed by replica a while the clock read later
	// (its claim and ticket as that claim would have returned them), and
	// still being decided.
	held := s.publish(t, "held")
	tks := s.takeAll(t, s.runtime)
	if len(tks) != 1 || tks[0].TriggerID != held.trigger.TriggerID {
		t.Fatalf("replica a took %d rows, want the uninitialised one", len(tks))
	}
	tk := tks[0]
	tk.Lease.AcquiredAtMs += clockAheadMs
	tk.Lease.ExpiresAtMs += clockAheadMs
	tk.ObservedAtMs = tk.Lease.AcquiredAtMs
	if err := s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET claim_expires_at_ms = $2, updated_at_ms = $3 WHERE trigger_id = $1`,
		held.trigger.TriggerID, tk.Lease.ExpiresAtMs, tk.Lease.AcquiredAtMs); err != nil {
		t.Fatal(err)
	}
	holder := params(t, tk)
	if got := s.takeAll(t, b); len(got) != 0 {
		t.Fatalf("replica b took %d rows under claims whose leases run out in ten years, want none", len(got))
	}
	before := map[string]storetest.Row{}
	for _, id := range []string{dead.trigger.TriggerID, held.trigger.TriggerID} {
		r, err := s.row(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before[id] = r
	}

	l := listenNotices(t, s)
	moved, err := s.runtime.ScheduleReanchor(ctx)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if len(moved) != 1 || moved[0].TriggerID != dead.trigger.TriggerID || moved[0].ToMs >= moved[0].FromMs {
		t.Fatalf("the check moved %+v, want only the dead replica's row, moved back", moved)
	}
	l.expectSchedulesNotices(t, s, "a check that wrote rows", 1)
	for id, was := range before {
		r, err := s.row(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.ClaimOwner != nil || r.StateVersion != was.StateVersion+1 || r.ClaimVersion != was.ClaimVersion {
			t.Fatalf("row %s after the check: %+v, want its claim given back, state version %d, claim version %d kept",
				id, r, was.StateVersion+1, was.ClaimVersion)
		}
	}
	if r, _ := s.row(ctx, dead.trigger.TriggerID); r.NextFireAtMs == nil || *r.NextFireAtMs != moved[0].ToMs {
		t.Fatalf("the dead replica's row has cursor %v, want %d", r.NextFireAtMs, moved[0].ToMs)
	}

	afterCheck, err := s.row(ctx, held.trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := s.runtime.ScheduleCommit(ctx, holder); res.Outcome != schedule.Raced {
		t.Fatalf("the holder's commit after the check: %s (%s), want raced", res.Outcome, res.Reason)
	}
	s.requireNothingWritten(t, held.trigger.TriggerID, afterCheck)

	taken := s.takeAll(t, b)
	if len(taken) != 1 || taken[0].TriggerID != held.trigger.TriggerID {
		t.Fatalf("replica b took %d rows, want the uninitialised row given back", len(taken))
	}
	if res, err := b.ScheduleCommit(ctx, params(t, taken[0])); res.Outcome != schedule.Initialized {
		t.Fatalf("replica b's commit: %s (%s) %v", res.Outcome, res.Reason, err)
	}
	if err := s.makeDue(ctx, dead.trigger.TriggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	taken = s.takeAll(t, b)
	if len(taken) != 1 || taken[0].TriggerID != dead.trigger.TriggerID {
		t.Fatalf("replica b took %d rows once the moved row was due, want it", len(taken))
	}
}

// A check while no row was written later than the database clock writes
// nothing (no row's version or write time changes, a live claim stays) and
// wakes nobody.
func TestTheClockCheckWritesNothingWhenNoRowWasWrittenLater(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		s.publish(t, name)
	}
	s.initialiseAll(t, s.runtime, 3)
	s.publish(t, "claimed")
	if got := s.takeAll(t, s.runtime); len(got) != 1 {
		t.Fatalf("took %d rows, want the one uninitialised row", len(got))
	}
	snapshot := func() map[string][2]int64 {
		rows, err := s.super.Query(ctx, `SELECT trigger_id::text, state_version, updated_at_ms FROM qinglong.trigger_schedules`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][2]int64{}
		for rows.Next() {
			var id string
			var v [2]int64
			if err := rows.Scan(&id, &v[0], &v[1]); err != nil {
				t.Fatal(err)
			}
			out[id] = v
		}
		return out
	}
	was := snapshot()
	l := listenNotices(t, s)
	moved, err := s.runtime.ScheduleReanchor(ctx)
	if err != nil || len(moved) != 0 {
		t.Fatalf("check: moved %+v, %v; want nothing", moved, err)
	}
	l.expectSchedulesNotices(t, s, "a check that wrote nothing", 0)
	now := snapshot()
	if len(now) != 4 {
		t.Fatalf("%d schedule rows, want 4", len(now))
	}
	for id, v := range was {
		if now[id] != v {
			t.Fatalf("the check wrote row %s: state version and write time %v -> %v", id, v, now[id])
		}
	}
}

// A row an in-flight transaction holds is skipped, not waited for, and
// left to the next check, which moves it once the lock is gone.
func TestTheClockCheckLeavesALockedRowToTheNextCheck(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	d := s.publish(t, "alpha")
	s.initialiseAll(t, s.runtime, 1)
	if err := s.tamper(ctx, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` + $2, due_offset_ms = 0, updated_at_ms = `+ClockMsSQL+` + $2 WHERE trigger_id = $1`,
		d.trigger.TriggerID, int64(clockAheadMs)); err != nil {
		t.Fatal(err)
	}
	tx, err := s.super.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) // ended below; a failed test leaves it to this
	if _, err := tx.Exec(ctx, `SELECT 1 FROM qinglong.trigger_schedules WHERE trigger_id = $1 FOR UPDATE`, d.trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	if moved, err := s.runtime.ScheduleReanchor(ctx); err != nil || len(moved) != 0 {
		t.Fatalf("check while the row is locked: moved %+v, %v; want nothing, at once", moved, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if moved, err := s.runtime.ScheduleReanchor(ctx); err != nil || len(moved) != 1 || moved[0].TriggerID != d.trigger.TriggerID {
		t.Fatalf("check after the lock: moved %+v, %v; want the row", moved, err)
	}
}
