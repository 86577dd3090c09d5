package faults

import (
	"slices"
	"testing"
)

func TestLongestGapSpansFromTheLastAdmissionBeforeTheWindowToItsEnd(t *testing.T) {
	t.Parallel()
	times := map[string][]int64{
		// Steady, then silent from 1500 to the window's end at 5000.
		"quiet-at-end": {100, 1000, 1500},
		// Its longest silence starts before the window (900 → 3000).
		"late-in-window": {900, 3000, 4000, 4900},
		// Never admitted before the window: its first gap has no start.
		"unstarted": {2000, 2500},
		// Admissions after the window are ignored.
		"after-window": {950, 1900, 2900, 3900, 4900, 9000},
	}
	worst, unstarted := longestGap(times, 1000, 5000)
	if want := (gap{TriggerID: "quiet-at-end", FromMs: 1500, ToMs: 5000}); worst != want {
		t.Fatalf("worst gap %+v, want %+v", worst, want)
	}
	if !slices.Equal(unstarted, []string{"unstarted"}) {
		t.Fatalf("unstarted %v, want [unstarted]", unstarted)
	}

	delete(times, "quiet-at-end")
	delete(times, "unstarted")
	worst, unstarted = longestGap(times, 1000, 5000)
	if want := (gap{TriggerID: "late-in-window", FromMs: 900, ToMs: 3000}); worst != want || len(unstarted) != 0 {
		t.Fatalf("worst gap %+v, unstarted %v; want %+v and none", worst, unstarted, want)
	}
}
