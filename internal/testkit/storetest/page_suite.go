package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// pageCases are the guarantees of committing several decisions as one
// page: each decision gets exactly the outcome and reason it would get
// alone, and one that races or fails writes nothing of itself and never
// stops the others.
func pageCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"OneRacedRowOfAPageWritesNothingAndTheRestAreAdmitted":  testPageOneRowRaced,
		"AReplayInsideAPageFailsAloneOnItsIdempotencyKey":       testPageReplay,
		"EveryRowOfAMixedPageGetsItsOwnOutcome":                 testPageMixed,
		"AWriteFailingMidRowWritesNothingOfItAndThePageCommits": testPageWriteFails,
		"TheSameTicketTwiceInAPageIsAdmittedOnce":               testPageSameTicketTwice,
		"ConcurrentPagesOverTheSameRowsAdmitEachOccurrenceOnce": testConcurrentPagesOnce,
		"APageCommittedAfterTheCallerCancelledIsCancelledWhole": testPageCancelled,
		"EveryKindOfDecisionInOnePageKeepsItsOwnOutcome":        testPageEveryKind,
	}
}

// byTrigger indexes tickets by trigger id.
func byTrigger(tks []schedule.Ticket) map[string]schedule.Ticket {
	m := make(map[string]schedule.Ticket, len(tks))
	for _, tk := range tks {
		m[tk.TriggerID] = tk
	}
	return m
}

// requireAdmitted requires res to be the admission of p, with exactly one
// Run, one Attempt and two events for its trigger.
func requireAdmitted(t *testing.T, f Fixture, p schedule.CommitParams, res schedule.CommitResult) {
	t.Helper()
	if res.Outcome != schedule.Admitted || res.Reason != "" || res.RunID != p.RunID {
		t.Fatalf("trigger %s: %s (%s) run %q; want admitted run %s", p.Ticket.TriggerID, res.Outcome, res.Reason, res.RunID, p.RunID)
	}
	requireAdmittedAt(t, f, res)
	if c := counts(t, f, p.Ticket.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("trigger %s admitted in a page has %+v, want 1 run, 1 attempt, 2 events", p.Ticket.TriggerID, c)
	}
}

// requireResult requires the reason (and its outcome) and no Run.
func requireResult(t *testing.T, what string, res schedule.CommitResult, reason schedule.Reason) {
	t.Helper()
	if res.Outcome != reason.Outcome() || res.Reason != reason || res.RunID != "" || res.AdmittedAtMs != 0 {
		t.Fatalf("%s: %s (%s) run %q admitted at %d; want %s (%s), no Run", what, res.Outcome, res.Reason, res.RunID, res.AdmittedAtMs, reason.Outcome(), reason)
	}
}

// requireAdmittedAt requires an admission's result to carry its Run's
// creation time: the admission lag metric is measured to it.
func requireAdmittedAt(t *testing.T, f Fixture, res schedule.CommitResult) {
	t.Helper()
	got, err := f.Runs.RunGet(t.Context(), res.RunID)
	if err != nil {
		t.Fatalf("read admitted run %s: %v", res.RunID, err)
	}
	if res.AdmittedAtMs == 0 || res.AdmittedAtMs != got.Run.CreatedAtMs {
		t.Fatalf("admission of run %s reports it admitted at %d; its Run was created at %d", res.RunID, res.AdmittedAtMs, got.Run.CreatedAtMs)
	}
}

// requireUntouched requires a trigger's row and counts to be as before.
func requireUntouched(t *testing.T, f Fixture, triggerID string, before Row, beforeCounts Counts) {
	t.Helper()
	if after := row(t, f, triggerID); !sameRow(after, before) {
		t.Fatalf("trigger %s: a refused row of a page changed: %+v -> %+v", triggerID, before, after)
	}
	if c := counts(t, f, triggerID); c != beforeCounts {
		t.Fatalf("trigger %s: a refused row of a page wrote: %+v -> %+v", triggerID, beforeCounts, c)
	}
}

// dueDefs publishes n triggers, initialises them and makes them all due.
func dueDefs(t *testing.T, f Fixture, n int) []defs {
	t.Helper()
	all := make([]defs, n)
	for i := range all {
		all[i] = newDefs(t, f, fmt.Sprintf("p%02d", i), quietCron(t, f))
	}
	initialise(t, f)
	for _, d := range all {
		makeDue(t, f, d.Trigger.TriggerID, 1_000)
	}
	return all
}

func testPageOneRowRaced(t *testing.T, f Fixture) {
	all := dueDefs(t, f, 4)
	tks := take(t, f, schedule.MaxPageSize)
	if len(tks) != len(all) {
		t.Fatalf("took %d rows, want %d", len(tks), len(all))
	}
	ps := make([]schedule.CommitParams, len(tks))
	for i, tk := range tks {
		ps[i] = commitParams(t, tk)
	}
	// The second row moves behind the page's back; the rows after it must
	// still commit.
	racer := tks[1].TriggerID
	makeDue(t, f, racer, 2_000)
	before := row(t, f, racer)
	rs := commitPage(t, f, ps)
	for i, res := range rs {
		if i == 1 {
			requireResult(t, "the moved row", res, schedule.ReasonStateVersionChanged)
			continue
		}
		requireAdmitted(t, f, ps[i], res)
	}
	requireUntouched(t, f, racer, before, Counts{})
}

func testPageReplay(t *testing.T, f Fixture) {
	all := make([]defs, 3)
	for i := range all {
		all[i] = newDefs(t, f, fmt.Sprintf("p%d", i), quietCron(t, f))
	}
	initialise(t, f)
	replayed := all[0].Trigger.TriggerID
	makeDue(t, f, replayed, 1_000)
	first := commitParams(t, takeOne(t, f))
	if res := commit(t, f, first); res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	// The row is put back on the admitted occurrence and forgets the
	// admission (a restored backup; one that kept it would be a cursor
	// moved back after the clock went back: clockback_suite.go).
	tamper(t, f.Tamper.SetCursor(t.Context(), replayed, first.Decision.ScheduledForMs, true))
	tamper(t, f.Tamper.SetLastScheduled(t.Context(), replayed, nil))
	makeDue(t, f, all[1].Trigger.TriggerID, 1_000)
	makeDue(t, f, all[2].Trigger.TriggerID, 1_000)
	m := byTrigger(take(t, f, schedule.MaxPageSize))
	if len(m) != 3 {
		t.Fatalf("took %d rows, want 3", len(m))
	}
	// The replay sits between two due rows.
	ps := []schedule.CommitParams{commitParams(t, m[all[1].Trigger.TriggerID]), commitParams(t, m[replayed]), commitParams(t, m[all[2].Trigger.TriggerID])}
	if ps[1].Decision.Action != schedule.Admit || ps[1].Decision.ScheduledForMs != first.Decision.ScheduledForMs {
		t.Fatalf("replay decided %+v, want the admission of %d again", ps[1].Decision, first.Decision.ScheduledForMs)
	}
	before := row(t, f, replayed)
	rs := commitPage(t, f, ps)
	requireResult(t, "the replayed occurrence", rs[1], schedule.ReasonOccurrenceExists)
	requireAdmitted(t, f, ps[0], rs[0])
	requireAdmitted(t, f, ps[2], rs[2])
	requireUntouched(t, f, replayed, before, Counts{Runs: 1, Attempts: 1, Events: 2})
}

// testPageMixed: a page where one row was republished, one was committed
// by another committer first, one is a replay, one is uninitialised and
// the rest are due.
func testPageMixed(t *testing.T, f Fixture) {
	names := []string{"republished", "moved", "replayed", "due1", "due2"}
	d := map[string]defs{}
	for _, n := range names {
		d[n] = newDefs(t, f, n, quietCron(t, f))
	}
	initialise(t, f)
	replayed := d["replayed"].Trigger.TriggerID
	makeDue(t, f, replayed, 1_000)
	first := commitParams(t, takeOne(t, f))
	if res := commit(t, f, first); res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	tamper(t, f.Tamper.SetCursor(t.Context(), replayed, first.Decision.ScheduledForMs, true))
	tamper(t, f.Tamper.SetLastScheduled(t.Context(), replayed, nil))
	for _, n := range []string{"republished", "moved", "due1", "due2"} {
		makeDue(t, f, d[n].Trigger.TriggerID, 1_000)
	}
	d["fresh"] = newDefs(t, f, "fresh", quietCron(t, f))
	m := byTrigger(take(t, f, schedule.MaxPageSize))
	if len(m) != 6 {
		t.Fatalf("took %d rows, want 6", len(m))
	}
	order := []string{"due1", "republished", "moved", "replayed", "fresh", "due2"}
	ps := make([]schedule.CommitParams, len(order))
	for i, n := range order {
		ps[i] = commitParams(t, m[d[n].Trigger.TriggerID])
	}
	rep := d["republished"]
	spec := rep.Trigger.Spec
	spec.Cron.Expression = "*/2 * * * *"
	publishTrigger(t, f, rep.Project.ID, rep.Trigger.TriggerID, rep.Task, 1, spec)
	moved := ps[2]
	moved.RunID, moved.AttemptID = ids.New(), ids.New()
	if res, err := f.Schedule.ScheduleCommit(t.Context(), moved); res.Outcome != schedule.Admitted {
		t.Fatalf("the other committer's admission: %s (%s) %v", res.Outcome, res.Reason, err)
	}
	refused := map[string]Counts{"republished": {}, "moved": {Runs: 1, Attempts: 1, Events: 2}, "replayed": {Runs: 1, Attempts: 1, Events: 2}}
	before := map[string]Row{}
	for n := range refused {
		before[n] = row(t, f, d[n].Trigger.TriggerID)
	}
	rs := commitPage(t, f, ps)
	requireAdmitted(t, f, ps[0], rs[0])
	requireResult(t, "the republished row", rs[1], schedule.ReasonTriggerRevisionChanged)
	requireResult(t, "the row another committer moved", rs[2], schedule.ReasonStateVersionChanged)
	requireResult(t, "the replayed occurrence", rs[3], schedule.ReasonOccurrenceExists)
	if rs[4].Outcome != schedule.Initialized || rs[4].Reason != "" {
		t.Fatalf("the uninitialised row: %s (%s), want initialized", rs[4].Outcome, rs[4].Reason)
	}
	if r := row(t, f, d["fresh"].Trigger.TriggerID); r.NextFireAtMs == nil || *r.NextFireAtMs != ps[4].Decision.NextFireAtMs {
		t.Fatalf("the initialised row %+v; want cursor %d", r, ps[4].Decision.NextFireAtMs)
	}
	requireAdmitted(t, f, ps[5], rs[5])
	for n, c := range refused {
		requireUntouched(t, f, d[n].Trigger.TriggerID, before[n], c)
	}
}

// testPageWriteFails: an admission whose write fails after its Run,
// Attempt and first event were inserted leaves none of them, and the
// decision after it in the page still commits.
func testPageWriteFails(t *testing.T, f Fixture) {
	due := initialisedDefs(t, f, "due")
	makeDue(t, f, due.Trigger.TriggerID, 1_000)
	fresh := newDefs(t, f, "fresh", quietCron(t, f))
	m := byTrigger(take(t, f, schedule.MaxPageSize))
	ps := []schedule.CommitParams{commitParams(t, m[due.Trigger.TriggerID]), commitParams(t, m[fresh.Trigger.TriggerID])}
	if ps[0].Decision.Action != schedule.Admit || ps[1].Decision.Action != schedule.Initialize {
		t.Fatalf("decisions %s, %s; want admit, initialize", ps[0].Decision.Action, ps[1].Decision.Action)
	}
	tamper(t, f.Tamper.FailQueuedEvents(t.Context()))
	before := row(t, f, due.Trigger.TriggerID)
	rs := commitPage(t, f, ps)
	requireResult(t, "the admission whose run.queued insert fails", rs[0], schedule.ReasonWriteFailed)
	requireUntouched(t, f, due.Trigger.TriggerID, before, Counts{})
	if rs[1].Outcome != schedule.Initialized {
		t.Fatalf("the decision after the failed one: %s (%s), want initialized", rs[1].Outcome, rs[1].Reason)
	}
	if r := row(t, f, fresh.Trigger.TriggerID); r.NextFireAtMs == nil || *r.NextFireAtMs != ps[1].Decision.NextFireAtMs {
		t.Fatalf("the initialised row %+v; want cursor %d", r, ps[1].Decision.NextFireAtMs)
	}
}

// testPageSameTicketTwice: a round never puts one ticket in a page twice,
// but a page that does must not admit its occurrence twice. Which of the
// two wins is the store's choice; the other is raced and writes nothing.
func testPageSameTicketTwice(t *testing.T, f Fixture) {
	d, tk := dueTicket(t, f)
	ps := []schedule.CommitParams{commitParams(t, tk), commitParams(t, tk)}
	rs := commitPage(t, f, ps)
	won := -1
	for i, res := range rs {
		switch res.Outcome {
		case schedule.Admitted:
			if won >= 0 || res.RunID != ps[i].RunID {
				t.Fatalf("results %+v: want exactly one admission, of its own run", rs)
			}
			won = i
		case schedule.Raced:
		default:
			t.Fatalf("commit %d of the same ticket: %s (%s), want admitted or raced", i, res.Outcome, res.Reason)
		}
	}
	if won < 0 {
		t.Fatalf("results %+v: the occurrence was never admitted", rs)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("one occurrence has %+v, want exactly one admission", c)
	}
}

// testConcurrentPagesOnce: committers take pages concurrently and commit
// each as one page; every occurrence is admitted exactly once, whether the
// store's takes overlap (single-node) or partition the rows (cluster).
func testConcurrentPagesOnce(t *testing.T, f Fixture) {
	const triggers, committers = 12, 4
	all := dueDefs(t, f, triggers)
	admitted := make([]int, committers)
	var wg sync.WaitGroup
	for i := range committers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tks, err := f.Schedule.ScheduleTake(t.Context(), schedule.TakeParams{Limit: triggers})
			if err != nil {
				t.Errorf("committer %d: take: %v", i, err)
				return
			}
			ps := make([]schedule.CommitParams, len(tks))
			for j, tk := range tks {
				d, err := schedule.DecideTicket(tk, graceMs)
				if err != nil {
					t.Errorf("committer %d: decide: %v", i, err)
					return
				}
				ps[j] = schedule.CommitParams{Ticket: tk, Decision: d, GraceMs: graceMs, RunID: ids.New(), AttemptID: ids.New()}
			}
			rs, err := f.Schedule.ScheduleCommitPage(t.Context(), ps)
			if err != nil || len(rs) != len(ps) {
				t.Errorf("committer %d: %d results for %d decisions, %v", i, len(rs), len(ps), err)
				return
			}
			for j, res := range rs {
				switch {
				case res.Outcome == schedule.Admitted:
					admitted[i]++
				case res.Reason != schedule.ReasonStateVersionChanged:
					t.Errorf("committer %d, trigger %s: %s (%s)", i, ps[j].Ticket.TriggerID, res.Outcome, res.Reason)
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range admitted {
		total += n
	}
	if total != triggers {
		t.Fatalf("%d concurrent pages admitted %d occurrences (%v) of %d due triggers, want each exactly once", committers, total, admitted, triggers)
	}
	for _, d := range all {
		if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
			t.Fatalf("trigger %s: %+v, want exactly one admission", d.Trigger.Spec.Name, c)
		}
	}
}

// testPageCancelled: a page handed over by a caller that already gave up
// writes nothing, and every decision of it is cancelled.
func testPageCancelled(t *testing.T, f Fixture) {
	all := dueDefs(t, f, 3)
	tks := take(t, f, schedule.MaxPageSize)
	ps := make([]schedule.CommitParams, len(tks))
	for i, tk := range tks {
		ps[i] = commitParams(t, tk)
	}
	before := map[string]Row{}
	for _, d := range all {
		before[d.Trigger.TriggerID] = row(t, f, d.Trigger.TriggerID)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rs, _ := f.Schedule.ScheduleCommitPage(ctx, ps)
	if len(rs) != len(ps) {
		t.Fatalf("a cancelled page of %d decisions returned %d results", len(ps), len(rs))
	}
	for i, res := range rs {
		requireResult(t, "decision "+ps[i].Ticket.TriggerID+" of a cancelled page", res, schedule.ReasonCancelled)
	}
	for id, r := range before {
		requireUntouched(t, f, id, r, Counts{})
	}
}

// testPageEveryKind: one page holding plain admissions, an admission its
// trigger's overlap policy passes over, a misfire skip passing
// occurrences over and an uninitialised row: each gets the outcome,
// ledger entries and rows it would get committed alone.
func testPageEveryKind(t *testing.T, f Fixture) {
	d := map[string]defs{}
	for _, n := range []string{"due1", "due2"} {
		d[n] = newDefs(t, f, n, quietCron(t, f))
	}
	c := quietCron(t, f)
	c.Overlap = trigger.OverlapSkip
	d["overlap"] = newDefs(t, f, "overlap", c)
	c = quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d["late"] = newDefs(t, f, "late", c)
	initialise(t, f)
	first, res := admitDue(t, f, d["overlap"].Trigger.TriggerID)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("the overlap trigger's first admission: %s (%s)", res.Outcome, res.Reason)
	}
	for _, n := range []string{"due1", "due2", "overlap"} {
		makeDue(t, f, d[n].Trigger.TriggerID, 1_000)
	}
	makeDue(t, f, d["late"].Trigger.TriggerID, 5*60*60_000)
	d["fresh"] = newDefs(t, f, "fresh", quietCron(t, f))
	m := byTrigger(take(t, f, schedule.MaxPageSize))
	order := []string{"due1", "overlap", "late", "fresh", "due2"}
	if len(m) != len(order) {
		t.Fatalf("took %d rows, want %d", len(m), len(order))
	}
	ps := make([]schedule.CommitParams, len(order))
	for i, n := range order {
		ps[i] = commitParams(t, m[d[n].Trigger.TriggerID])
	}
	if ps[1].Decision.Action != schedule.Admit || ps[2].Decision.Action != schedule.SkipLate || len(ps[2].Decision.Passed) == 0 {
		t.Fatalf("decisions %s and %s passing over %+v; want an admission and a misfire skip", ps[1].Decision.Action, ps[2].Decision.Action, ps[2].Decision.Passed)
	}
	rs := commitPage(t, f, ps)
	requireAdmitted(t, f, ps[0], rs[0])
	requireAdmitted(t, f, ps[4], rs[4])
	for i, n := range []string{"overlap", "late"} {
		if res := rs[i+1]; res.Outcome != schedule.Skipped || res.Reason != "" || res.RunID != "" {
			t.Fatalf("the %s row: %s (%s) run %q, want skipped", n, res.Outcome, res.Reason, res.RunID)
		}
	}
	id := d["overlap"].Trigger.TriggerID
	requireLedger(t, f, id, d["overlap"].Trigger.Revision, first.Decision, ps[1].Decision.OverlapPassed())
	if c := counts(t, f, id); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("the overlap trigger has %+v, want only its first admission", c)
	}
	id = d["late"].Trigger.TriggerID
	requireLedger(t, f, id, d["late"].Trigger.Revision, ps[2].Decision)
	if c := counts(t, f, id); c != (Counts{}) {
		t.Fatalf("the misfire skip wrote %+v", c)
	}
	if res, r := rs[3], row(t, f, d["fresh"].Trigger.TriggerID); res.Outcome != schedule.Initialized || r.NextFireAtMs == nil || *r.NextFireAtMs != ps[3].Decision.NextFireAtMs {
		t.Fatalf("the uninitialised row: %s (%s), row %+v; want initialized at %d", res.Outcome, res.Reason, r, ps[3].Decision.NextFireAtMs)
	}
}
