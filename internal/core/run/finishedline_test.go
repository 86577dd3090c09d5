package run

import (
	"log/slog"
	"testing"
)

// A Run that failed, timed out or was lost is a warning; one that
// succeeded or that someone cancelled is info, on every profile.
func TestARunThatFailedTimedOutOrWasLostIsAWarning(t *testing.T) {
	t.Parallel()
	want := map[State]slog.Level{Succeeded: slog.LevelInfo, Cancelled: slog.LevelInfo, Failed: slog.LevelWarn, TimedOut: slog.LevelWarn, Lost: slog.LevelWarn}
	for _, s := range FinishedStates {
		if got := FinishedLevel(s); got != want[s] {
			t.Errorf("a Run finished %s is logged at %s, want %s", s, got, want[s])
		}
	}
	if len(want) != len(FinishedStates) {
		t.Fatalf("%d finished states, %d expected: a new state needs its level", len(FinishedStates), len(want))
	}
}
