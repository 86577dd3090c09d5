package storetest

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// adoptCases are the guarantees of starting a schedule at a position
// handed over from another database (schedule.Adopter).
func adoptCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"AnAdoptedPositionIsTheFirstOccurrenceTheScheduleAdmits":          testAdoptedPositionAdmittedFirst,
		"AnAdoptionIsRefusedOverATriggerThatAdmittedAnOccurrenceHere":     testAdoptRefusedAfterAdmission,
		"ATicketTakenBeforeAnAdoptionCommitsNothingAgainstTheNewPosition": testAdoptFencesEarlierTicket,
		"TheSamePositionAdoptedAgainIsAdoptedAlreadyBeforeAndAfterItRan":  testAdoptSamePositionAgain,
	}
}

func adopter(t *testing.T, f Fixture) schedule.Adopter {
	t.Helper()
	if f.Adopter == nil {
		t.Fatal("the fixture has no Adopter: the adapter cannot start a schedule at a handed-over position")
	}
	return f.Adopter
}

// handedOver is an occurrence of d's cron about two and a half hours
// before the adapter's clock: a position a source database stopped at.
func handedOver(t *testing.T, f Fixture, d defs) int64 {
	t.Helper()
	c := d.Trigger.Spec.Cron
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := s.Next(now(t, f) - 3*int64(time.Hour/time.Millisecond))
	return at
}

func adopt(t *testing.T, f Fixture, d defs, cursorMs int64) error {
	t.Helper()
	_, err := adoptResult(t, f, d, cursorMs)
	return err
}

func adoptResult(t *testing.T, f Fixture, d defs, cursorMs int64) (schedule.AdoptResult, error) {
	t.Helper()
	return adopter(t, f).ScheduleAdopt(t.Context(), schedule.AdoptRequest{TriggerID: d.Trigger.TriggerID, CursorMs: cursorMs})
}

// A trigger the target only initialised (a replica started before the
// handover was applied) adopts the position: its row's cursor is the
// handed-over occurrence, and the schedule's first admission is exactly
// that occurrence (fire_once admits it after the gap, as after any
// outage), not one after the publish — nothing the source had not
// admitted is skipped, and nothing before it is run again.
func testAdoptedPositionAdmittedFirst(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	before := row(t, f, d.Trigger.TriggerID)
	at := handedOver(t, f, d)
	if err := adopt(t, f, d, at); err != nil {
		t.Fatalf("adopt %d: %v", at, err)
	}
	got := row(t, f, d.Trigger.TriggerID)
	if got.NextFireAtMs == nil || *got.NextFireAtMs != at || got.DueAtMs == nil || *got.DueAtMs != at || got.StateVersion <= before.StateVersion {
		t.Fatalf("row after the adoption: %+v, want cursor and due time %d and a version past %d", got, at, before.StateVersion)
	}
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	res := commit(t, f, p)
	if res.Outcome != schedule.Admitted || p.Decision.ScheduledForMs != at {
		t.Fatalf("first decision after the adoption: %s (%s) for %d, want the handed-over occurrence %d admitted", res.Outcome, res.Reason, p.Decision.ScheduledForMs, at)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c.Runs != 1 {
		t.Fatalf("%d Runs after the first admission, want 1", c.Runs)
	}
}

// A trigger whose schedule admitted an occurrence in this database runs
// here already: an adoption is refused with its reason and changes
// nothing of the row.
func testAdoptRefusedAfterAdmission(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Admitted {
		t.Fatalf("admission: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	before := row(t, f, d.Trigger.TriggerID)
	err := adopt(t, f, d, handedOver(t, f, d))
	requireCode(t, err, qlerror.FailedPrecondition, "adopt over a trigger that admitted an occurrence")
	if r := qlerror.ReasonOf(err); r != schedule.RefusalAdoptOverScheduled {
		t.Fatalf("refusal reason %q, want %q", r, schedule.RefusalAdoptOverScheduled)
	}
	if got := row(t, f, d.Trigger.TriggerID); !sameRow(got, before) {
		t.Fatalf("the refused adoption changed the row: %+v -> %+v", before, got)
	}
}

// An adoption bumps the row's version: a ticket taken before it (a
// replica deciding the row at that moment) commits nothing, and the next
// take admits the adopted occurrence.
func testAdoptFencesEarlierTicket(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	stale := takeOne(t, f)
	at := handedOver(t, f, d)
	if err := adopt(t, f, d, at); err != nil {
		t.Fatalf("adopt %d: %v", at, err)
	}
	if res := commit(t, f, commitParams(t, stale)); res.Outcome == schedule.Admitted {
		t.Fatalf("a ticket taken before the adoption admitted %s", res.RunID)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c.Runs != 0 {
		t.Fatalf("%d Runs after the stale commit, want 0", c.Runs)
	}
	p := commitParams(t, takeOne(t, f))
	if res := commit(t, f, p); res.Outcome != schedule.Admitted || p.Decision.ScheduledForMs != at {
		t.Fatalf("decision after the adoption: %s (%s) for %d, want %d admitted", res.Outcome, res.Reason, p.Decision.ScheduledForMs, at)
	}
}

// The position adopted before, adopted again, changes nothing and says
// so (AdoptedAlready), before the schedule ran here and after it admitted
// that occurrence; another position over the schedule that ran is still
// refused.
func testAdoptSamePositionAgain(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	at := handedOver(t, f, d)
	if res, err := adoptResult(t, f, d, at); err != nil || res != schedule.Adopted {
		t.Fatalf("first adoption: %v, %v; want adopted", res, err)
	}
	before := row(t, f, d.Trigger.TriggerID)
	if res, err := adoptResult(t, f, d, at); err != nil || res != schedule.AdoptedAlready {
		t.Fatalf("the same position again before the schedule ran: %v, %v; want adopted already", res, err)
	}
	if got := row(t, f, d.Trigger.TriggerID); !sameRow(got, before) {
		t.Fatalf("adopting the same position again changed the row: %+v -> %+v", before, got)
	}
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Admitted {
		t.Fatalf("admission: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	if res, err := adoptResult(t, f, d, at); err != nil || res != schedule.AdoptedAlready {
		t.Fatalf("the same position again after the schedule ran: %v, %v; want adopted already", res, err)
	}
	c := d.Trigger.Spec.Cron
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.Next(at)
	_, err = adoptResult(t, f, d, other)
	if r := qlerror.ReasonOf(err); r != schedule.RefusalAdoptOverScheduled {
		t.Fatalf("another position after the schedule ran: %v; want refused %q", err, schedule.RefusalAdoptOverScheduled)
	}
}
