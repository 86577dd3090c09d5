package schedule

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestOverlapVerdictFollowsThePolicy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		policy     trigger.OverlapPolicy
		unfinished int
		waiting    bool
		want       OverlapVerdict
	}{
		{trigger.OverlapAllow, 0, false, OverlapAdmit},
		{trigger.OverlapAllow, 3, true, OverlapAdmit},
		{trigger.OverlapSkip, 0, false, OverlapAdmit},
		{trigger.OverlapSkip, 1, false, OverlapPass},
		{trigger.OverlapQueueOne, 0, false, OverlapAdmit},
		{trigger.OverlapQueueOne, 1, false, OverlapAdmitWaiting},
		// Two running (a forced run now): the occurrence still waits.
		{trigger.OverlapQueueOne, 2, false, OverlapAdmitWaiting},
		// One not started yet, running or not beside it: no second waits.
		{trigger.OverlapQueueOne, 1, true, OverlapPass},
		{trigger.OverlapQueueOne, 2, true, OverlapPass},
		{trigger.OverlapCancelPrevious, 0, false, OverlapAdmit},
		{trigger.OverlapCancelPrevious, 2, true, OverlapCancelThenAdmit},
	}
	for _, c := range cases {
		if got := OverlapOf(c.policy, c.unfinished, c.waiting); got != c.want {
			t.Errorf("policy %q with %d unfinished (one waiting: %v): verdict %d, want %d", c.policy, c.unfinished, c.waiting, got, c.want)
		}
	}
}

// An admission passed over for overlap moves the cursor as the admission
// would have, keeps the occurrences the admission passed, and records the
// occurrence it would have admitted in scheduled order.
func TestOverlapPassedRecordsTheAdmittedOccurrence(t *testing.T) {
	t.Parallel()
	d := Decision{Action: Admit, DueMs: 1000, ScheduledForMs: 3000, FireAtMs: 3100, NextFireAtMs: 9000, NextDueAtMs: 9050,
		Passed: []Passed{
			{Reason: PassCatchUpWindow, FirstMs: 1000, LastMs: 2000, Count: 2},
			{Reason: PassCollapsed, FirstMs: 4000, LastMs: 8000, Count: 5},
		}}
	got := d.OverlapPassed()
	want := Decision{Action: SkipLate, DueMs: 1000, NextFireAtMs: 9000, NextDueAtMs: 9050,
		Passed: []Passed{
			{Reason: PassCatchUpWindow, FirstMs: 1000, LastMs: 2000, Count: 2},
			{Reason: PassOverlap, FirstMs: 3000, LastMs: 3000, Count: 1},
			{Reason: PassCollapsed, FirstMs: 4000, LastMs: 8000, Count: 5},
		}}
	if !got.Equal(want) {
		t.Fatalf("passed decision %+v, want %+v", got, want)
	}
	if len(d.Passed) != 2 || d.Action != Admit {
		t.Fatal("OverlapPassed changed the decision it was given")
	}
	alone := Decision{Action: Admit, DueMs: 5, ScheduledForMs: 5, FireAtMs: 5, NextFireAtMs: 6}.OverlapPassed()
	if !slices.Equal(alone.Passed, []Passed{{Reason: PassOverlap, FirstMs: 5, LastMs: 5, Count: 1}}) {
		t.Fatalf("lone admission passed as %+v", alone.Passed)
	}
}
