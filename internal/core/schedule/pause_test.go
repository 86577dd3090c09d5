package schedule

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestAMisfireSkipPassesOverEveryOccurrenceFromTheDueOneToNow(t *testing.T) {
	t.Parallel()
	// 30 s past the last occurrence, beyond the 10 s grace of every one.
	now := t0 + 10*minute + 30_000
	d, err := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.Skip, GraceMs: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	want := []Passed{{Reason: PassMisfire, FirstMs: t0, LastMs: t0 + 10*minute, Count: 11}}
	if d.Action != SkipLate || !slices.Equal(d.Passed, want) {
		t.Fatalf("got %+v, want skip passing over %+v", d, want)
	}
}

func TestAFireOnceCatchUpCollapsesTheLaterMissedOccurrences(t *testing.T) {
	t.Parallel()
	now := t0 + 3*minute + 1
	d, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.FireOnce, GraceMs: minute})
	want := []Passed{{Reason: PassCollapsed, FirstMs: t0 + minute, LastMs: t0 + 3*minute, Count: 3}}
	if d.Action != Admit || d.ScheduledForMs != t0 || !slices.Equal(d.Passed, want) {
		t.Fatalf("got %+v, want admit of %d collapsing %+v", d, t0, want)
	}
	onTime, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + 5, Policy: trigger.FireOnce, GraceMs: minute})
	if len(onTime.Passed) != 0 {
		t.Fatalf("an on-time admit passed over %+v", onTime.Passed)
	}
}

func TestOccurrencesDueWhilePausedArePassedOverAsPaused(t *testing.T) {
	t.Parallel()
	// Paused from t0+90s to t0+5m30s; decided at t0+8m30s: the misfire
	// policy applies, the occurrences inside the pause are recorded as
	// paused.
	pause := &PauseSpan{FromMs: t0 + 90_000, UntilMs: t0 + 5*minute + 30_000}
	now := t0 + 8*minute + 30_000
	skip, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.Skip, GraceMs: 10_000, Pause: pause})
	want := []Passed{
		{Reason: PassMisfire, FirstMs: t0, LastMs: t0 + minute, Count: 2},
		{Reason: PassPaused, FirstMs: t0 + 2*minute, LastMs: t0 + 5*minute, Count: 4},
		{Reason: PassMisfire, FirstMs: t0 + 6*minute, LastMs: t0 + 8*minute, Count: 3},
	}
	if skip.Action != SkipLate || !slices.Equal(skip.Passed, want) {
		t.Fatalf("skip: got %+v, want %+v", skip.Passed, want)
	}
	once, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0 + 2*minute), NowMs: now, Policy: trigger.FireOnce, GraceMs: minute, Pause: pause})
	want = []Passed{
		{Reason: PassPaused, FirstMs: t0 + 3*minute, LastMs: t0 + 5*minute, Count: 3},
		{Reason: PassCollapsed, FirstMs: t0 + 6*minute, LastMs: t0 + 8*minute, Count: 3},
	}
	if once.Action != Admit || once.ScheduledForMs != t0+2*minute || !slices.Equal(once.Passed, want) {
		t.Fatalf("fire_once: got %+v, want admit of the oldest and %+v", once, want)
	}
}

func TestPauseSpansCompareByValueAndOnlyAnEndedPauseHasOne(t *testing.T) {
	t.Parallel()
	if !samePause(nil, nil) || samePause(nil, &PauseSpan{}) || samePause(&PauseSpan{FromMs: 1, UntilMs: 2}, &PauseSpan{FromMs: 1, UntilMs: 3}) {
		t.Fatal("pause spans compared wrongly")
	}
	if PauseSpanOf(true, cursor(1), cursor(2)) != nil || PauseSpanOf(false, cursor(1), nil) != nil {
		t.Fatal("a paused or never resumed row gave a pause span")
	}
}
