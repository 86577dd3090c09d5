package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// placeCases are the guarantees of a cancel_previous replacement's place
// in the dispatch order: it starts from the place of the Run it cancelled,
// never from a place that Run took over, and never ahead of a place behind
// the backfills'. RunSchedule runs each through both commit paths.
func placeCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"AReplacementStartsBeforeTheRunsQueuedAfterTheRunItCancelledButNotBeforeEarlierOnes": testReplacementTakesThePlace,
		"AReplacementOfAReplacementTakesOnlyThePlaceOfTheRunItCancelled":                     testReplacementOfAReplacement,
		"ABackfillStillStartsAfterAReplacementAndAReplacedBackfillGivesNoPlace":              testReplacementBesideBackfills,
		"ARunNowUnderCancelPreviousTakesThePlaceOfTheRunItCancelled":                         testRunNowReplacementTakesThePlace,
	}
}

// placeDefs publishes a project named name with a quiet trigger under
// policy and takes its first decision.
func placeDefs(t *testing.T, f Fixture, name string, policy trigger.OverlapPolicy) string {
	t.Helper()
	c := quietCron(t, f)
	c.Overlap = policy
	id := newDefs(t, f, name, c).Trigger.TriggerID
	initialise(t, f)
	return id
}

// admitRun admits the trigger's due occurrence and returns its Run.
func admitRun(t *testing.T, f Fixture, triggerID string) string {
	t.Helper()
	p, res := admitDue(t, f, triggerID)
	if res.Outcome != schedule.Admitted || res.RunID != p.RunID {
		t.Fatalf("admission of %s: %s (%s), want admitted", triggerID, res.Outcome, res.Reason)
	}
	return p.RunID
}

// requireDispatchOrder checks that the dispatcher starts exactly want, in
// that order.
func requireDispatchOrder(t *testing.T, f Fixture, what string, want ...string) {
	t.Helper()
	if got := f.DispatchOrder(t, len(want)+1); !slices.Equal(got, want) {
		t.Fatalf("the dispatcher starts %v,\nwant %s: %v", got, what, want)
	}
}

func testReplacementTakesThePlace(t *testing.T, f Fixture) {
	before := admitRun(t, f, placeDefs(t, f, "before", trigger.OverlapAllow))
	replaced := placeDefs(t, f, "replaced", trigger.OverlapCancelPrevious)
	admitRun(t, f, replaced)
	after := admitRun(t, f, placeDefs(t, f, "after", trigger.OverlapAllow))
	replacement := admitRun(t, f, replaced)
	requireDispatchOrder(t, f, "the Run queued before the cancelled one, the replacement, then the Run queued after it",
		before, replacement, after)
}

// The second replacement takes the first replacement's own place (its
// admission), not the place the first one took over: a Run the first
// replacement passed is not passed again.
func testReplacementOfAReplacement(t *testing.T, f Fixture) {
	replaced := placeDefs(t, f, "replaced", trigger.OverlapCancelPrevious)
	admitRun(t, f, replaced)
	passedOnce := admitRun(t, f, placeDefs(t, f, "passed", trigger.OverlapAllow))
	admitRun(t, f, replaced)
	after := admitRun(t, f, placeDefs(t, f, "after", trigger.OverlapAllow))
	second := admitRun(t, f, replaced)
	requireDispatchOrder(t, f, "the Run queued between the first two, the second replacement, then the Run queued after the first replacement",
		passedOnce, second, after)
}

// A replacement starts before a backfill queued after the Run it
// cancelled (a backfill's Runs start after every other), and a Run that
// replaces backfilled Runs keeps its own place: theirs is behind every
// other Run, so taking it would pass Runs they never passed.
func testReplacementBesideBackfills(t *testing.T, f Fixture) {
	replaced := placeDefs(t, f, "replaced", trigger.OverlapCancelPrevious)
	admitRun(t, f, replaced)
	backfilledPrev := placeDefs(t, f, "backfilled", trigger.OverlapCancelPrevious)
	history := placeDefs(t, f, "history", trigger.OverlapAllow)
	now := nowOf(t, f)
	for _, id := range []string{backfilledPrev, history} {
		if res := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: now - 3*60*60_000, ToMs: now - 1}); res.Admitted != 3 {
			t.Fatalf("backfill of %s admitted %d Runs, want 3", id, res.Admitted)
		}
	}
	var backlog []string
	for _, r := range runsOf(t, f, history) {
		backlog = append(backlog, r.ID)
	}
	slices.Sort(backlog)
	after := admitRun(t, f, placeDefs(t, f, "after", trigger.OverlapAllow))
	replacement := admitRun(t, f, replaced)
	ofBackfill := admitRun(t, f, backfilledPrev)
	want := append([]string{replacement, after, ofBackfill}, backlog...)
	requireDispatchOrder(t, f, "the replacement, the Run queued after the Run it cancelled, the replacement of the backfilled Runs, then the backfill",
		want...)
}

func testRunNowReplacementTakesThePlace(t *testing.T, f Fixture) {
	replaced := placeDefs(t, f, "replaced", trigger.OverlapCancelPrevious)
	admitRun(t, f, replaced)
	after := admitRun(t, f, placeDefs(t, f, "after", trigger.OverlapAllow))
	now := runNow(t, f, schedule.RunNowRequest{TriggerID: replaced, RequestID: "replace"})
	if !now.Created || now.Finished.Cancelled != 1 {
		t.Fatalf("run now %+v, want a Run created and the queued one cancelled", now)
	}
	requireDispatchOrder(t, f, "the run now in the cancelled Run's place, then the Run queued after it", now.RunID, after)
}
