package storetest

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// overlapCases are the overlap policies' guarantees: the admission reads
// the trigger's unfinished Runs in its own transaction and applies the
// policy there; RunSchedule runs each through both commit paths.
func overlapCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"OverlapAllowAdmitsWhileAnEarlierRunIsUnfinished":               testOverlapAllow,
		"OverlapSkipRecordsTheOccurrenceWhileTheEarlierRunIsUnfinished": testOverlapSkip,
		"OverlapQueueOneAdmitsOneWaitingRunThenPassesTheRest":           testOverlapQueueOne,
		"OverlapQueueOneLetsAtMostOneRunWaitUnstarted":                  testOverlapQueueOneLetsOneRunWaitUnstarted,
		"OverlapCancelPreviousCancelsTheUnfinishedRunThenAdmits":        testOverlapCancelPrevious,
		"OverlapSkipNeverAdmitsTwoRunsWhileThePreviousOneFinishes":      testOverlapSkipRace,
		"AnOverlapPassIsReportedByTheCommit":                            testAnOverlapPassIsReportedByTheCommit,
		"ARunCancelPreviousCancelledSaysWhatCancelledIt":                testOverlapCancelSaysWhy,
	}
}

// unfinished are the Runs of a trigger that have not finished (a lost Run
// has).
func unfinished(t *testing.T, f Fixture, triggerID string) []run.Run {
	t.Helper()
	var out []run.Run
	for _, r := range runsOf(t, f, triggerID) {
		if !r.State.Terminal() && r.State != run.Lost {
			out = append(out, r)
		}
	}
	return out
}

// admitDue makes the trigger due a second ago and commits the decision its
// ticket yields, returning it and its result.
func admitDue(t *testing.T, f Fixture, triggerID string) (schedule.CommitParams, schedule.CommitResult) {
	t.Helper()
	makeDue(t, f, triggerID, 1_000)
	p := commitParams(t, takeOne(t, f))
	if p.Decision.Action != schedule.Admit {
		t.Fatalf("decision %s, want admit", p.Decision.Action)
	}
	return p, commit(t, f, p)
}

func cancelRun(t *testing.T, f Fixture, runID string) {
	t.Helper()
	if _, _, err := f.Cancel(t.Context(), runID, "test"); err != nil {
		t.Fatalf("cancel run %s: %v", runID, err)
	}
}

func testOverlapAllow(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	id := d.Trigger.TriggerID
	initialise(t, f)
	for i := range 2 {
		if _, res := admitDue(t, f, id); res.Outcome != schedule.Admitted {
			t.Fatalf("admission %d: %s (%s), want admitted", i, res.Outcome, res.Reason)
		}
	}
	if n := len(unfinished(t, f, id)); n != 2 {
		t.Fatalf("%d unfinished runs, want both admissions' under overlap: allow", n)
	}
}

// overlapDefs publishes project alpha with one quiet trigger under the
// overlap policy given and initialises its schedule row.
func overlapDefs(t *testing.T, f Fixture, policy trigger.OverlapPolicy) defs {
	t.Helper()
	c := quietCron(t, f)
	c.Overlap = policy
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	return d
}

func testOverlapSkip(t *testing.T, f Fixture) {
	d := overlapDefs(t, f, trigger.OverlapSkip)
	id := d.Trigger.TriggerID
	first, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted || res.RunID != first.RunID {
		t.Fatalf("first admission: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	second, res := admitDue(t, f, id)
	if res.Outcome != schedule.Skipped || res.RunID != "" || res.Reason != "" {
		t.Fatalf("admission behind an unfinished run: %s (%s) run %q, want skipped", res.Outcome, res.Reason, res.RunID)
	}
	passed := second.Decision.OverlapPassed()
	requireLedger(t, f, id, d.Trigger.Revision, first.Decision, passed)
	if got := counts(t, f, id); got.Runs != 1 {
		t.Fatalf("%d runs, want only the first", got.Runs)
	}
	r := row(t, f, id)
	if r.NextFireAtMs == nil || *r.NextFireAtMs != second.Decision.NextFireAtMs || r.LastScheduledAtMs == nil ||
		*r.LastScheduledAtMs != first.Decision.ScheduledForMs {
		t.Fatalf("row after the overlap skip %+v; want cursor %d and the first admission as the last scheduled", r, second.Decision.NextFireAtMs)
	}
	// Once the earlier Run has finished, the next occurrence is admitted.
	cancelRun(t, f, first.RunID)
	third, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted || res.RunID != third.RunID {
		t.Fatalf("admission after the earlier run finished: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	if got := counts(t, f, id); got.Runs != 2 {
		t.Fatalf("%d runs, want two", got.Runs)
	}
}

func testOverlapQueueOne(t *testing.T, f Fixture) {
	d := overlapDefs(t, f, trigger.OverlapQueueOne)
	id := d.Trigger.TriggerID
	first, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	var second, third schedule.CommitParams
	whileRunning(t, f, first.RunID, func() {
		second, res = admitDue(t, f, id)
		if res.Outcome != schedule.Admitted || res.RunID != second.RunID {
			t.Fatalf("admission behind one running run: %s (%s), want admitted to wait", res.Outcome, res.Reason)
		}
		third, res = admitDue(t, f, id)
		if res.Outcome != schedule.Skipped {
			t.Fatalf("admission with a run waiting already: %s (%s), want skipped", res.Outcome, res.Reason)
		}
		if n := len(unfinished(t, f, id)); n != 2 {
			t.Fatalf("%d unfinished runs, want the running one and the one waiting", n)
		}
	})
	requireLedger(t, f, id, d.Trigger.Revision, first.Decision, second.Decision, third.Decision.OverlapPassed())
}

// whileRunning starts runID's attempt, calls during while it runs, then
// lets it succeed.
func whileRunning(t *testing.T, f Fixture, runID string, during func()) {
	t.Helper()
	finished, err := f.FinishAfter(t.Context(), runID, run.AttemptSucceeded, func(context.Context) error {
		during()
		return nil
	})
	if err != nil || finished != run.Succeeded {
		t.Fatalf("run %s finished %q, %v; want succeeded", runID, finished, err)
	}
}

// Under queue_one at most one Run of the trigger waits unstarted, whatever
// it waits for: a Run that never started (the server was stopped, or the
// executor's slots were full) is the waiting one, so the next occurrence
// is passed over rather than queued beside it; once it runs, one more may
// wait behind it.
func testOverlapQueueOneLetsOneRunWaitUnstarted(t *testing.T, f Fixture) {
	d := overlapDefs(t, f, trigger.OverlapQueueOne)
	id := d.Trigger.TriggerID
	first, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	second, res := admitDue(t, f, id)
	if res.Outcome != schedule.Skipped || res.RunID != "" {
		t.Fatalf("admission beside a run that never started: %s (%s) run %q, want skipped", res.Outcome, res.Reason, res.RunID)
	}
	if refused := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "beside"}); refused.Created || refused.Skipped != schedule.PassOverlap ||
		refused.Unfinished != first.RunID || !refused.Waiting {
		t.Fatalf("run now beside the unstarted run: %+v; want refused for overlap naming %s as waiting", refused, first.RunID)
	}
	var third schedule.CommitParams
	whileRunning(t, f, first.RunID, func() {
		third, res = admitDue(t, f, id)
		if res.Outcome != schedule.Admitted || res.RunID != third.RunID {
			t.Fatalf("admission once the first runs: %s (%s), want admitted to wait", res.Outcome, res.Reason)
		}
	})
	fourth, res := admitDue(t, f, id)
	if res.Outcome != schedule.Skipped {
		t.Fatalf("admission beside the waiting run after the first finished: %s (%s), want skipped", res.Outcome, res.Reason)
	}
	requireLedger(t, f, id, d.Trigger.Revision, first.Decision, second.Decision.OverlapPassed(), third.Decision, fourth.Decision.OverlapPassed())
	if got := counts(t, f, id); got.Runs != 2 {
		t.Fatalf("%d runs, want the first and the third", got.Runs)
	}
}

func testOverlapCancelPrevious(t *testing.T, f Fixture) {
	d := overlapDefs(t, f, trigger.OverlapCancelPrevious)
	id := d.Trigger.TriggerID
	first, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	second, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted || res.RunID != second.RunID {
		t.Fatalf("admission behind an unfinished run: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	states := map[string]run.State{}
	for _, r := range runsOf(t, f, id) {
		states[r.ID] = r.State
	}
	if len(states) != 2 || states[first.RunID] != run.Cancelled || states[second.RunID] != run.Queued {
		t.Fatalf("runs %v; want the earlier one cancelled and the new one queued", states)
	}
	// The commit reports the Run it finished, for the finished-Runs count.
	if res.Finished != (run.FinishCounts{Cancelled: 1}) {
		t.Fatalf("the admission reports %+v finished, want the earlier Run cancelled", res.Finished)
	}
	requireLedger(t, f, id, d.Trigger.Revision, first.Decision, second.Decision)
}

// A Run cancel_previous cancels says in its cancel's event what cancelled
// it — a later occurrence, or a manual run of the trigger — whether it was
// queued (run.cancelled) or running (run.cancel_requested, before its
// command is stopped), and names no actor: nobody asked. A person's cancel
// names who asked and, for a Run that had not started, says so.
func testOverlapCancelSaysWhy(t *testing.T, f Fixture) {
	id := overlapDefs(t, f, trigger.OverlapCancelPrevious).Trigger.TriggerID
	queued, _ := admitDue(t, f, id)
	later, _ := admitDue(t, f, id)
	var manual schedule.RunNowResult
	finished, err := f.FinishAfter(t.Context(), later.RunID, run.AttemptSucceeded, func(context.Context) error {
		manual = runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "manual"})
		return nil
	})
	if err != nil || finished != run.Cancelled {
		t.Fatalf("the running Run the manual run cancelled finished %q, %v; want cancelled", finished, err)
	}
	cancelRun(t, f, manual.RunID)
	for _, c := range []struct {
		runID, event string
		want         map[string]any
	}{
		{queued.RunID, run.EventCancelled, map[string]any{"reason": string(run.CancelledByLaterOccurrence)}},
		{later.RunID, run.EventCancelRequested, map[string]any{"reason": string(run.CancelledByManualRun)}},
		{manual.RunID, run.EventCancelled, map[string]any{"reason": string(run.CancelledBeforeStart), "actor": "test"}},
	} {
		got := eventPayload(t, f, c.runID, c.event)
		for _, k := range []string{"reason", "actor"} {
			if got[k] != c.want[k] {
				t.Fatalf("Run %s's %s says %v, want %s %v", c.runID, c.event, got, k, c.want[k])
			}
		}
	}
}

// eventPayload is the payload of runID's last event named name.
func eventPayload(t *testing.T, f Fixture, runID, name string) map[string]any {
	t.Helper()
	d, err := f.Runs.RunGet(t.Context(), runID)
	if err != nil {
		t.Fatalf("read run %s: %v", runID, err)
	}
	for _, e := range slices.Backward(d.Events) {
		if e.Name != name {
			continue
		}
		var p map[string]any
		if err := json.Unmarshal([]byte(e.Payload), &p); err != nil {
			t.Fatalf("Run %s's %s payload %q: %v", runID, name, e.Payload, err)
		}
		return p
	}
	t.Fatalf("Run %s has no %s event: %+v", runID, name, d.Events)
	return nil
}

// Two replicas' rounds decide the same skip trigger while its previous Run
// is being finished, occurrence after occurrence: each occurrence gets
// exactly one of a Run or an overlap ledger entry, and the trigger never
// has two unfinished Runs.
func testOverlapSkipRace(t *testing.T, f Fixture) {
	const occurrences = 6
	id := overlapDefs(t, f, trigger.OverlapSkip).Trigger.TriggerID
	cfg := schedule.RoundConfig{PageSize: 4, GraceMs: graceMs, Parallel: 2, NewIDs: ids.Fill}
	for i := range occurrences {
		// Less late each time, so no two occurrences share an instant.
		makeDue(t, f, id, int64(1_000-i))
		var wg sync.WaitGroup
		for r := range 2 {
			wg.Go(func() {
				s, err := schedule.Round(t.Context(), f.Schedule, cfg)
				if err != nil || s.Counts[schedule.Failed] != 0 || s.Counts[schedule.Unavailable] != 0 {
					t.Errorf("occurrence %d, round %d: %v %v %v", i, r, s.Counts, s.Errors, err)
				}
			})
		}
		if i%2 == 1 {
			// Every other occurrence, the unfinished Run finishes while
			// the rounds decide.
			for _, u := range unfinished(t, f, id) {
				wg.Go(func() { cancelRun(t, f, u.ID) })
			}
		}
		wg.Wait()
		if n := len(unfinished(t, f, id)); n > 1 {
			t.Fatalf("occurrence %d: %d unfinished runs under overlap: skip", i, n)
		}
	}
	var overlaps int64
	for _, e := range ledger(t, f, id) {
		if e.Reason != schedule.PassOverlap {
			t.Fatalf("ledger entry %+v; want only overlap entries", e)
		}
		overlaps += e.Count
	}
	if runs := int64(counts(t, f, id).Runs); runs+overlaps != occurrences || runs == 0 {
		t.Fatalf("%d runs and %d overlap entries for %d occurrences; want exactly one of them each", runs, overlaps, occurrences)
	}
}

// An admission the overlap policy passes over inside the commit is
// reported by the commit as the pass it wrote to the ledger, and a round
// counts exactly what its commits wrote (Summary.Passed, which the
// occurrences-passed metric counts): the decision handed to the store
// passed nothing over for overlap.
func testAnOverlapPassIsReportedByTheCommit(t *testing.T, f Fixture) {
	id := overlapDefs(t, f, trigger.OverlapSkip).Trigger.TriggerID
	if _, res := admitDue(t, f, id); res.Outcome != schedule.Admitted || len(res.Passed) != 0 {
		t.Fatalf("first admission: %s (%s) passing %+v over, want admitted passing nothing over", res.Outcome, res.Reason, res.Passed)
	}
	before := len(ledger(t, f, id))
	second, res := admitDue(t, f, id)
	written := writtenSince(t, f, id, before)
	if res.Outcome != schedule.Skipped || len(second.Decision.Passed) != 0 || len(res.Passed) != 1 || res.Passed[0].Reason != schedule.PassOverlap ||
		res.Passed[0].Count != 1 || !slices.Equal(res.Passed, written) {
		t.Fatalf("admission behind an unfinished run: %s (%s) passing %+v over; the ledger recorded %+v; want skipped, one overlap pass, as recorded",
			res.Outcome, res.Reason, res.Passed, written)
	}
	// Three hours late, the admission also collapses the later missed
	// occurrences (fire_once): the round must count both reasons exactly
	// as the ledger holds them.
	makeDue(t, f, id, 3*time.Hour.Milliseconds()+1_000)
	before = len(ledger(t, f, id))
	s, err := schedule.Round(t.Context(), f.Schedule, schedule.RoundConfig{PageSize: 4, GraceMs: graceMs, Parallel: 1, NewIDs: ids.Fill})
	if err != nil || s.Counts[schedule.Skipped] != 1 || s.Progress() != 1 {
		t.Fatalf("round behind an unfinished run: %v %v %v, want one skip", s.Counts, s.Errors, err)
	}
	recorded := map[schedule.PassReason]int64{}
	for _, p := range writtenSince(t, f, id, before) {
		recorded[p.Reason] += p.Count
	}
	if recorded[schedule.PassOverlap] != 1 || recorded[schedule.PassCollapsed] == 0 || !maps.Equal(s.Passed, recorded) {
		t.Fatalf("the round counted %v passed over; the ledger recorded %v (want one overlap and the collapsed occurrences)", s.Passed, recorded)
	}
}

// writtenSince is what the trigger's ledger gained since it held before
// entries, oldest first (the order a decision passes them over in).
func writtenSince(t *testing.T, f Fixture, triggerID string, before int) []schedule.Passed {
	t.Helper()
	entries := ledger(t, f, triggerID)
	var out []schedule.Passed
	for i := len(entries) - before - 1; i >= 0; i-- {
		out = append(out, entries[i].Passed)
	}
	return out
}
