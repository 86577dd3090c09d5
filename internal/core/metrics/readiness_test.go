package metrics

import (
	"slices"
	"testing"
)

// Each profile exports the readiness states it can be in and no other: an
// edge or standalone server has no held_for_workers series (what ql-edge
// serves names nothing it does not have), and a cluster replica none of
// the states of a database file it does not hold.
func TestEachProfileExportsOnlyTheReadinessStatesItCanBeIn(t *testing.T) {
	for profile, want := range map[string][]string{
		"standalone": {StateStarting, StateReady, StateDatabaseUnavailable, StateDraining, StateDatabaseMoved, StateDatabaseCorrupt, StateClockBehindDatabase},
		"edge":       {StateStarting, StateReady, StateDatabaseUnavailable, StateDraining, StateDatabaseMoved, StateDatabaseCorrupt, StateClockBehindDatabase},
		"cluster":    {StateStarting, StateReady, StateDatabaseUnavailable, StateDraining, StateHeldForWorkers},
	} {
		m := New(Config{Profile: profile, Readiness: func() string { return StateReady }})
		var got []string
		for _, s := range gather(t, m)["qinglong_readiness_state"].GetMetric() {
			got = append(got, s.GetLabel()[0].GetValue())
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s exports the readiness states %v, want %v", profile, got, want)
		}
	}
}
