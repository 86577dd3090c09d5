package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// policyCases are the trigger time policies' guarantees (jitter, startAt,
// endAt, the catch-up window); RunSchedule runs each through both commit
// paths.
func policyCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"JitterTakesTheRowAtItsJitteredInstantAndAdmitsTheNominalOccurrence": testJitterAdmits,
		"AJitteredTimeOtherThanTheTicketsIsRefused":                          testJitterMismatchRefused,
		"ConcurrentRoundsAdmitEachJitteredOccurrenceOnceAtTheSameTime":       testJitterConcurrentRounds,
		"StartAtIsTheFirstOccurrence":                                        testStartAt,
		"EndAtEndsTheRowAndNoTakeReturnsItAgain":                             testEndAt,
		"ALateDecisionPassesTheOccurrencesAfterEndAt":                        testEndAtLate,
		"CatchUpWindowPassesOlderOccurrencesAndAdmitsTheOldestInside":        testCatchUpWindow,
	}
}

const policyJitterMs = 10 * 60_000

func nowOf(t *testing.T, f Fixture) int64 {
	t.Helper()
	now, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatalf("read the adapter's clock: %v", err)
	}
	return now
}

func moveCursor(t *testing.T, f Fixture, triggerID string, cursorMs int64, dueOffsetMs *int64) {
	t.Helper()
	if err := f.MoveCursor(t.Context(), triggerID, cursorMs, dueOffsetMs); err != nil {
		t.Fatalf("move the cursor of %s: %v", triggerID, err)
	}
}

func offset(ms int64) *int64 { return &ms }

func runsOf(t *testing.T, f Fixture, triggerID string) []run.Run {
	t.Helper()
	rs, _, err := f.Runs.RunList(t.Context(), run.ListParams{TriggerID: triggerID, Limit: 100})
	if err != nil {
		t.Fatalf("list runs: %v", err)
	}
	return rs
}

func testJitterAdmits(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.JitterMs = policyJitterMs
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	r := row(t, f, id)
	if r.NextFireAtMs == nil || r.DueAtMs == nil || *r.DueAtMs != schedule.FireAt(id, *r.NextFireAtMs, c.JitterMs) {
		t.Fatalf("initialised row %+v; want its cursor due at the cursor's jittered time", r)
	}
	// A nominal occurrence a minute ago whose jitter puts it more than two
	// minutes ahead is not due: no take returns its row.
	now := nowOf(t, f)
	nominal := now - 60_000
	for schedule.JitterOffset(id, nominal, c.JitterMs) < 4*60_000 {
		nominal--
	}
	moveCursor(t, f, id, nominal, offset(schedule.JitterOffset(id, nominal, c.JitterMs)))
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("a row whose nominal time passed but whose jittered time did not was taken")
	}
	// One whose jittered time has passed is taken and admitted for its
	// nominal time, the Run recording the jittered one.
	nominal = now - c.JitterMs - 60_000
	due := schedule.FireAt(id, nominal, c.JitterMs)
	moveCursor(t, f, id, nominal, offset(due-nominal))
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if p.Decision.Action != schedule.Admit || p.Decision.ScheduledForMs != nominal || p.Decision.FireAtMs != due {
		t.Fatalf("decision %+v; want admit of %d at %d", p.Decision, nominal, due)
	}
	// Another replica deciding the same ticket later agrees on the time.
	other := tk
	other.ObservedAtMs += 5_000
	if o := decide(t, other); o.FireAtMs != due || o.ScheduledForMs != nominal {
		t.Fatalf("a second replica decided %+v; want the same occurrence at %d", o, due)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s)", res.Outcome, res.Reason)
	}
	rs := runsOf(t, f, id)
	if len(rs) != 1 || rs[0].ScheduledForMs != nominal || rs[0].DueAtMs != due ||
		rs[0].IdempotencyKey != schedule.IdempotencyKey(id, d.Trigger.Revision, nominal) {
		t.Fatalf("runs %+v; want one Run scheduled for %d, due at %d, keyed on the nominal time", rs, nominal, due)
	}
	r = row(t, f, id)
	if r.NextFireAtMs == nil || r.DueAtMs == nil || *r.NextFireAtMs != p.Decision.NextFireAtMs ||
		*r.DueAtMs != schedule.FireAt(id, p.Decision.NextFireAtMs, c.JitterMs) {
		t.Fatalf("row after admit %+v; want cursor %d due at its jittered time", r, p.Decision.NextFireAtMs)
	}
}

func testJitterMismatchRefused(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.JitterMs = policyJitterMs
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	nominal := nowOf(t, f) - c.JitterMs - 60_000
	due := schedule.FireAt(id, nominal, c.JitterMs)
	moveCursor(t, f, id, nominal, offset(due-nominal))
	p := commitParams(t, takeOne(t, f))
	p.Decision.FireAtMs = nominal
	if res := commit(t, f, p); res.Outcome != schedule.Failed || res.Reason != schedule.ReasonDecisionMismatch {
		t.Fatalf("a decision without its jitter committed as %s (%s); want failed, %s", res.Outcome, res.Reason, schedule.ReasonDecisionMismatch)
	}
	if got := counts(t, f, id); got != (Counts{}) {
		t.Fatalf("the refused decision wrote %+v", got)
	}
}

func testStartAt(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.StartAtMs = nowOf(t, f) + 5*60*60_000
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.Next(c.StartAtMs - 1)
	if r := row(t, f, d.Trigger.TriggerID); r.NextFireAtMs == nil || *r.NextFireAtMs != want {
		t.Fatalf("row %+v; want the first occurrence at or after startAt, %d", r, want)
	}
}

func ended(r Row) bool { return r.NextFireAtMs != nil && r.DueAtMs == nil }

func testEndAt(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	now := nowOf(t, f)
	c.EndAtMs = now + 10*60_000 // before the first occurrence, half an hour away
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	if r := row(t, f, id); !ended(r) || *r.NextFireAtMs != schedule.EndedCursor(c.EndAtMs) {
		t.Fatalf("row %+v; want it ended at once, no occurrence lying within its bounds", r)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("an ended row was taken")
	}
	// An occurrence within the bounds that is due is admitted, and the row
	// ends behind it: the next occurrence lies after endAt.
	moveCursor(t, f, id, now-1_000, offset(0))
	p := commitParams(t, takeOne(t, f))
	if p.Decision.Action != schedule.Admit || !p.Decision.Ended {
		t.Fatalf("decision %+v; want the last occurrence admitted and the row ended", p.Decision)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s)", res.Outcome, res.Reason)
	}
	if r := row(t, f, id); !ended(r) {
		t.Fatalf("row after the last admission %+v; want ended", r)
	}
	// However its cursor is moved, an ended row is never taken again.
	makeDue(t, f, id, 60*60_000)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("an ended row was taken after its cursor moved")
	}
	if got := counts(t, f, id); got.Runs != 1 {
		t.Fatalf("%d runs; want the one admitted before the end", got.Runs)
	}
}

func testEndAtLate(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	now := nowOf(t, f)
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	c.StartAtMs, c.EndAtMs = now-10*60*60_000, now-3*60*60_000
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	// The row was last moved to the occurrence before endAt and decided
	// three hours after it: that occurrence is admitted, the ones after
	// endAt up to now are passed as outside the bounds.
	last, _ := s.Next(c.EndAtMs - 60*60_000)
	moveCursor(t, f, id, last, offset(0))
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	want, _ := schedule.PassRange(s, schedule.PassOutsideBounds, c.EndAtMs+1, tk.ObservedAtMs)
	if p.Decision.Action != schedule.Admit || p.Decision.ScheduledForMs != last || !p.Decision.Ended ||
		len(p.Decision.Passed) != 1 || p.Decision.Passed[0] != want || want.Count < 2 {
		t.Fatalf("decision %+v; want admit of %d, the row ended and %+v passed", p.Decision, last, want)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s)", res.Outcome, res.Reason)
	}
	if r := row(t, f, id); !ended(r) {
		t.Fatalf("row %+v; want ended", r)
	}
}

func testCatchUpWindow(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, CatchUpWindowMs: 10 * 60_000, HasCatchUpWindow: true}
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	now := nowOf(t, f)
	missed := now - now%60_000 - 60*60_000 // an hour of missed minutes
	moveCursor(t, f, id, missed, offset(0))
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	oldest := tk.ObservedAtMs - c.CatchUpWindowMs
	admitted := p.Decision.ScheduledForMs
	if p.Decision.Action != schedule.Admit || admitted < oldest || admitted-60_000 >= oldest {
		t.Fatalf("decision %+v; want the oldest occurrence at or after %d admitted", p.Decision, oldest)
	}
	want := schedule.Passed{Reason: schedule.PassCatchUpWindow, FirstMs: missed, LastMs: admitted - 60_000, Count: (admitted - missed) / 60_000}
	lastMissed := tk.ObservedAtMs - tk.ObservedAtMs%60_000
	collapsed := schedule.Passed{Reason: schedule.PassCollapsed, FirstMs: admitted + 60_000, LastMs: lastMissed, Count: (lastMissed - admitted) / 60_000}
	if len(p.Decision.Passed) != 2 || p.Decision.Passed[0] != want || p.Decision.Passed[1] != collapsed {
		t.Fatalf("passed %+v; want %+v then the later missed minutes collapsed, %+v", p.Decision.Passed, want, collapsed)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s)", res.Outcome, res.Reason)
	}
	if rs := runsOf(t, f, id); len(rs) != 1 || rs[0].ScheduledForMs != admitted {
		t.Fatalf("runs %+v; want one Run for %d", rs, admitted)
	}
}

// testTriggerListPolicies: `triggers list` shows each trigger's time
// policies as published, its cursor's jittered due time, and an ended row
// as ended, with no next fire or due time.
func testTriggerListPolicies(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	now := nowOf(t, f)
	c.JitterMs, c.StartAtMs, c.EndAtMs = policyJitterMs, now-60_000, now+10*24*60*60_000
	c.CatchUpWindowMs, c.HasCatchUpWindow = 0, true
	jittered := newDefs(t, f, "alpha", c)
	over := quietCron(t, f)
	over.EndAtMs = now + 60_000
	ended := newDefs(t, f, "beta", over)
	initialise(t, f)
	list, _, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schedule.TriggerStatus{}
	for _, s := range list {
		got[s.TriggerID] = s
	}
	j := got[jittered.Trigger.TriggerID]
	if j.Cron != c || j.NextFireAtMs == nil || j.NextDueAtMs == nil ||
		*j.NextDueAtMs != schedule.FireAt(jittered.Trigger.TriggerID, *j.NextFireAtMs, c.JitterMs) {
		t.Fatalf("jittered trigger listed as %+v; want cron %+v and its cursor's jittered due time", j, c)
	}
	e := got[ended.Trigger.TriggerID]
	if e.Cron != over || !e.Ended || e.NextFireAtMs != nil || e.NextDueAtMs != nil {
		t.Fatalf("ended trigger listed as %+v; want it ended, with no next fire or due time (its stored cursor is no fire time)", e)
	}
	if j.Ended {
		t.Fatalf("the jittered trigger is listed ended: %+v", j)
	}
}

// Rounds racing over jittered rows, as replicas do, admit each occurrence
// once, every Run due at the one instant its trigger and nominal time give.
func testJitterConcurrentRounds(t *testing.T, f Fixture) {
	const triggers, rounds = 8, 4
	c := quietCron(t, f)
	c.JitterMs = policyJitterMs
	nominal := nowOf(t, f) - c.JitterMs - 60_000
	var all []defs
	for i := range triggers {
		d := newDefs(t, f, fmt.Sprintf("p%02d", i), c)
		moveCursor(t, f, d.Trigger.TriggerID, nominal, offset(schedule.JitterOffset(d.Trigger.TriggerID, nominal, c.JitterMs)))
		all = append(all, d)
	}
	cfg := schedule.RoundConfig{PageSize: triggers, GraceMs: graceMs, Parallel: 4, NewIDs: ids.Fill}
	var wg sync.WaitGroup
	for i := range rounds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := schedule.Round(t.Context(), f.Schedule, cfg); err != nil {
				t.Errorf("round %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	for _, d := range all {
		id := d.Trigger.TriggerID
		rs := runsOf(t, f, id)
		if len(rs) != 1 || rs[0].ScheduledForMs != nominal || rs[0].DueAtMs != schedule.FireAt(id, nominal, c.JitterMs) {
			t.Fatalf("trigger %s: runs %+v; want one Run for %d due at %d", d.Trigger.Spec.Name, rs, nominal, schedule.FireAt(id, nominal, c.JitterMs))
		}
	}
}
