package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// aheadMs is how far ahead the clock read when the suite's rows were
// written "later": ten years, as a device that booted with a clock that
// far ahead would have left them.
const aheadMs = 10 * 365 * 24 * int64(time.Hour/time.Millisecond)

// clockBackTakes are the checks of rows a clock that went back left ahead
// (schedule.Reanchorer); clockBackCommits are the admissions after such a
// check, run through each commit path.
func clockBackTakes() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"ARowWrittenWhileTheClockReadLaterMovesBackToItsNextOccurrence":    testReanchorMovesBack,
		"ARowThatEndedWhileTheClockReadLaterIsOpenedAgain":                 testReanchorOpensEnded,
		"APausedRowWrittenWhileTheClockReadLaterIsMovedBackAndStaysPaused": testReanchorMovesPaused,
		"APauseOrResumeAfterTheClockWentBackLeavesTheRowToTheCheck":        testReanchorAfterPauseOrResume,
	}
}

func clockBackCommits() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"AnOccurrenceAdmittedWhileTheClockReadLaterIsPassedNotAdmittedAgain": testClockBackPassesAdmitted,
		"AnAdmissionBeforeTheLastAdmittedOccurrenceKeepsTheLastAdmitted":     testClockBackKeepsLastAdmitted,
	}
}

func reanchorer(t *testing.T, f Fixture) schedule.Reanchorer {
	t.Helper()
	rs, ok := f.Schedule.(schedule.Reanchorer)
	if !ok {
		t.Fatalf("%T does not move back the cursors a clock that went back left ahead (schedule.Reanchorer)", f.Schedule)
	}
	return rs
}

// nextFrom is the first occurrence of c after the adapter's clock, read
// before and after call: the occurrence a check made in between must
// have moved a cursor to (the two differ only when an occurrence falls
// between the readings).
func nextFrom(t *testing.T, f Fixture, c trigger.Cron, call func()) (lo, hi int64) {
	t.Helper()
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	before := now(t, f)
	call()
	after := now(t, f)
	lo, _ = s.Next(max(before, c.StartAtMs-1))
	hi, _ = s.Next(max(after, c.StartAtMs-1))
	return lo, hi
}

// A check moves back the cursor of a row written while the clock read
// later, when that cursor lies after the trigger's next occurrence from
// now: to that occurrence, with its jitter, bumping the row's version. It
// leaves a row written later whose cursor is already that occurrence, and
// a row written before now, as they are; a second check moves nothing.
func testReanchorMovesBack(t *testing.T, f Fixture) {
	// One quiet cron for every row: each reading of the clock may fall in
	// another minute and give another expression, and every moved row is
	// checked against this one's next occurrence.
	quiet := quietCron(t, f)
	plain := newDefs(t, f, "alpha", quiet)
	jittered := quiet
	jittered.JitterMs = 30_000
	jitter := newDefs(t, f, "beta", jittered)
	onTime := newDefs(t, f, "gamma", quiet)
	before := newDefs(t, f, "delta", quiet)
	initialise(t, f)
	at := now(t, f)
	far := at + aheadMs
	for _, d := range []defs{plain, jitter, before} {
		moveCursor(t, f, d.Trigger.TriggerID, far, new(int64))
	}
	for _, d := range []defs{plain, jitter, onTime} {
		tamper(t, f.Tamper.SetWrittenAt(t.Context(), d.Trigger.TriggerID, far))
	}
	rows := map[string]Row{}
	for _, d := range []defs{plain, jitter, onTime, before} {
		rows[d.Trigger.TriggerID] = row(t, f, d.Trigger.TriggerID)
	}
	var moved []schedule.Reanchored
	lo, hi := nextFrom(t, f, plain.Trigger.Spec.Cron, func() {
		var err error
		if moved, err = reanchorer(t, f).ScheduleReanchor(t.Context()); err != nil {
			t.Fatalf("check: %v", err)
		}
	})
	if len(moved) != 2 {
		t.Fatalf("the check moved %+v, want exactly %s and %s", moved, plain.Trigger.TriggerID, jitter.Trigger.TriggerID)
	}
	for _, m := range moved {
		id := m.TriggerID
		if id != plain.Trigger.TriggerID && id != jitter.Trigger.TriggerID {
			t.Fatalf("the check moved %s, which was not written later or was already at its next occurrence", id)
		}
		if m.FromMs != far || (m.ToMs != lo && m.ToMs != hi) {
			t.Fatalf("the check moved %s from %d to %d, want from %d to the next occurrence from now (%d or %d)", id, m.FromMs, m.ToMs, far, lo, hi)
		}
		got := row(t, f, id)
		wantDue := schedule.FireAt(id, m.ToMs, 0)
		if id == jitter.Trigger.TriggerID {
			wantDue = schedule.FireAt(id, m.ToMs, jittered.JitterMs)
		}
		if got.NextFireAtMs == nil || *got.NextFireAtMs != m.ToMs || got.DueAtMs == nil || *got.DueAtMs != wantDue ||
			got.StateVersion != rows[id].StateVersion+1 {
			t.Fatalf("row of %s after the check: %+v, want cursor %d due at %d, version %d", id, got, m.ToMs, wantDue, rows[id].StateVersion+1)
		}
	}
	for _, d := range []defs{onTime, before} {
		if got := row(t, f, d.Trigger.TriggerID); !sameRow(got, rows[d.Trigger.TriggerID]) {
			t.Fatalf("the check changed %s: %+v -> %+v", d.Trigger.Spec.Name, rows[d.Trigger.TriggerID], got)
		}
	}
	again, err := reanchorer(t, f).ScheduleReanchor(t.Context())
	if err != nil || len(again) != 0 {
		t.Fatalf("a second check moved %+v (%v), want nothing: the rows it moved were written now", again, err)
	}
}

// A row that ended while the clock read later (its next occurrence then
// lay past endAt) is opened again at its next occurrence from now, which
// lies within its bounds.
func testReanchorOpensEnded(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	at := now(t, f)
	c.EndAtMs = at + 2*int64(time.Hour/time.Millisecond)
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	moveCursor(t, f, d.Trigger.TriggerID, schedule.EndedCursor(c.EndAtMs), nil)
	tamper(t, f.Tamper.SetWrittenAt(t.Context(), d.Trigger.TriggerID, c.EndAtMs+aheadMs))
	var moved []schedule.Reanchored
	lo, hi := nextFrom(t, f, c, func() {
		var err error
		if moved, err = reanchorer(t, f).ScheduleReanchor(t.Context()); err != nil {
			t.Fatalf("check: %v", err)
		}
	})
	if len(moved) != 1 || moved[0].TriggerID != d.Trigger.TriggerID || (moved[0].ToMs != lo && moved[0].ToMs != hi) {
		t.Fatalf("the check moved %+v, want %s opened at %d", moved, d.Trigger.TriggerID, lo)
	}
	got := row(t, f, d.Trigger.TriggerID)
	if got.NextFireAtMs == nil || *got.NextFireAtMs != moved[0].ToMs || got.DueAtMs == nil || *got.DueAtMs != moved[0].ToMs {
		t.Fatalf("row after the check: %+v, want cursor and due time %d", got, moved[0].ToMs)
	}
}

// A paused row written while the clock read later is moved back like any
// other, and stays paused: its resume finds the cursor a decision made now
// would give it.
func testReanchorMovesPaused(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	pause(t, f, d.Trigger.TriggerID, true, "")
	far := now(t, f) + aheadMs
	moveCursor(t, f, d.Trigger.TriggerID, far, new(int64))
	tamper(t, f.Tamper.SetWrittenAt(t.Context(), d.Trigger.TriggerID, far))
	var moved []schedule.Reanchored
	lo, hi := nextFrom(t, f, c, func() {
		var err error
		if moved, err = reanchorer(t, f).ScheduleReanchor(t.Context()); err != nil {
			t.Fatalf("check: %v", err)
		}
	})
	if len(moved) != 1 || moved[0].TriggerID != d.Trigger.TriggerID || moved[0].FromMs != far || (moved[0].ToMs != lo && moved[0].ToMs != hi) {
		t.Fatalf("the check moved %+v, want the paused %s from %d to %d", moved, d.Trigger.TriggerID, far, lo)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows after the check, want none: the row stays paused", len(tks))
	}
	pause(t, f, d.Trigger.TriggerID, false, "")
	if got := row(t, f, d.Trigger.TriggerID); got.NextFireAtMs == nil || *got.NextFireAtMs != moved[0].ToMs {
		t.Fatalf("row after the resume: %+v, want the cursor %d the check gave it", got, moved[0].ToMs)
	}
}

// A pause or a resume written after the clock went back, before the next
// check, changes the row's pause state and nothing that says when its
// cursor was worked out: its write keeps the later time, so the check
// still finds the cursor the later clock left and moves it back.
func testReanchorAfterPauseOrResume(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	paused := newDefs(t, f, "alpha", c)
	resumed := newDefs(t, f, "beta", c)
	initialise(t, f)
	pause(t, f, resumed.Trigger.TriggerID, true, "")
	far := now(t, f) + aheadMs
	for _, d := range []defs{paused, resumed} {
		moveCursor(t, f, d.Trigger.TriggerID, far, new(int64))
		tamper(t, f.Tamper.SetWrittenAt(t.Context(), d.Trigger.TriggerID, far))
	}
	pause(t, f, paused.Trigger.TriggerID, true, "")
	pause(t, f, resumed.Trigger.TriggerID, false, "")
	var moved []schedule.Reanchored
	lo, hi := nextFrom(t, f, c, func() {
		var err error
		if moved, err = reanchorer(t, f).ScheduleReanchor(t.Context()); err != nil {
			t.Fatalf("check: %v", err)
		}
	})
	to := map[string]int64{}
	for _, m := range moved {
		if m.FromMs != far || (m.ToMs != lo && m.ToMs != hi) {
			t.Fatalf("the check moved %+v, want each row from %d to %d", moved, far, lo)
		}
		to[m.TriggerID] = m.ToMs
	}
	for _, d := range []defs{paused, resumed} {
		if _, ok := to[d.Trigger.TriggerID]; !ok || len(moved) != 2 {
			t.Fatalf("the check moved %+v, want the row paused and the row resumed after the clock went back", moved)
		}
	}
	for _, d := range []defs{paused, resumed} {
		if got := row(t, f, d.Trigger.TriggerID); got.NextFireAtMs == nil || *got.NextFireAtMs != to[d.Trigger.TriggerID] {
			t.Fatalf("row of %s after the check: %+v, want the cursor %d", d.Trigger.TriggerID, got, to[d.Trigger.TriggerID])
		}
	}
}

// After a cursor was moved back onto an occurrence the row admitted while
// the clock read later (at or before its last admitted occurrence), the
// admission finds that occurrence's Run: it is passed over as
// clock_went_back in the ledger, with no second Run, and the cursor moves
// on as the admission would have moved it.
func testClockBackPassesAdmitted(t *testing.T, f Fixture) {
	d, tk := dueTicket(t, f)
	first := commitParams(t, tk)
	if res := commit(t, f, first); res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	at := first.Decision.ScheduledForMs
	tamper(t, f.Tamper.SetCursor(t.Context(), d.Trigger.TriggerID, at, true))
	again := commitParams(t, takeOne(t, f))
	if again.Decision.Action != schedule.Admit || again.Decision.ScheduledForMs != at {
		t.Fatalf("the row moved back decided %+v, want the admission of %d again", again.Decision, at)
	}
	res := commit(t, f, again)
	passed := again.Decision.PassedAs(schedule.PassClockWentBack)
	if res.Outcome != schedule.Skipped || res.RunID != "" || !slices.Equal(res.Passed, passed.Passed) {
		t.Fatalf("commit: %s (%s) run %q passed %+v; want skipped, no Run, passed %+v", res.Outcome, res.Reason, res.RunID, res.Passed, passed.Passed)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("the occurrence has %+v, want its one admission", c)
	}
	got := row(t, f, d.Trigger.TriggerID)
	if got.NextFireAtMs == nil || *got.NextFireAtMs != again.Decision.NextFireAtMs || got.LastScheduledAtMs == nil || *got.LastScheduledAtMs != at {
		t.Fatalf("row after the pass: %+v, want cursor %d and last admitted %d", got, again.Decision.NextFireAtMs, at)
	}
	requireLedger(t, f, d.Trigger.TriggerID, d.Trigger.Revision, first.Decision, passed)
}

// An occurrence without a Run before the row's last admitted one (the
// clock read later when that one was admitted) is admitted, and the row
// keeps the later one as its last admitted occurrence, so the occurrences
// between them that have their Run are still recognised.
func testClockBackKeepsLastAdmitted(t *testing.T, f Fixture) {
	d, tk := dueTicket(t, f)
	first := commitParams(t, tk)
	if res := commit(t, f, first); res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	last := first.Decision.ScheduledForMs
	earlier := last - 60_000
	tamper(t, f.Tamper.SetCursor(t.Context(), d.Trigger.TriggerID, earlier, true))
	p := commitParams(t, takeOne(t, f))
	if p.Decision.Action != schedule.Admit || p.Decision.ScheduledForMs != earlier {
		t.Fatalf("the row moved back decided %+v, want the admission of %d", p.Decision, earlier)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("admission of %d: %s (%s)", earlier, res.Outcome, res.Reason)
	}
	got := row(t, f, d.Trigger.TriggerID)
	if got.LastScheduledAtMs == nil || *got.LastScheduledAtMs != last {
		t.Fatalf("last admitted occurrence after admitting %d: %v, want %d kept", earlier, got.LastScheduledAtMs, last)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 2, Attempts: 2, Events: 4}) {
		t.Fatalf("two occurrences have %+v, want one admission each", c)
	}
}
