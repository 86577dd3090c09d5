package schedule

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Times in a UTC minute grid make the arithmetic readable.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).UnixMilli()

const minute = int64(60_000)

func everyMinute(t *testing.T) *cron.Schedule {
	t.Helper()
	s, err := cron.Parse("* * * * *", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func cursor(ms int64) *int64 { return &ms }

func TestNullCursorIsAnchoredAtRevisionCreationMinusOneMs(t *testing.T) {
	t.Parallel()
	// Created exactly on an occurrence: that occurrence counts.
	d, err := Decide(Input{Schedule: everyMinute(t), RevisionCreatedAtMs: t0, NowMs: t0 - 10, Policy: trigger.Skip, GraceMs: minute})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != Initialize || d.DueMs != t0 || d.NextFireAtMs != t0 {
		t.Fatalf("got %+v, want initialize at the creation instant %d", d, t0)
	}
	// Created 1 ms after an occurrence: the next one.
	d, _ = Decide(Input{Schedule: everyMinute(t), RevisionCreatedAtMs: t0 + 1, NowMs: t0, Policy: trigger.Skip, GraceMs: minute})
	if d.DueMs != t0+minute {
		t.Fatalf("due %d, want %d", d.DueMs, t0+minute)
	}
}

func TestNullCursorAlreadyDueIsAdmittedNotInitialized(t *testing.T) {
	t.Parallel()
	d, _ := Decide(Input{Schedule: everyMinute(t), RevisionCreatedAtMs: t0 - 30_000, NowMs: t0 + 5, Policy: trigger.FireOnce, GraceMs: minute})
	if d.Action != Admit || d.ScheduledForMs != t0 || d.NextFireAtMs != t0+minute {
		t.Fatalf("got %+v", d)
	}
}

func TestFutureDueInitializesOnly(t *testing.T) {
	t.Parallel()
	d, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0 + minute), RevisionCreatedAtMs: t0 - minute, NowMs: t0, Policy: trigger.FireOnce, GraceMs: minute})
	if d.Action != Initialize || d.NextFireAtMs != t0+minute || d.ScheduledForMs != 0 {
		t.Fatalf("got %+v, want initialize keeping the cursor", d)
	}
}

func TestLateBeyondGraceWithSkipSkipsToAfterNow(t *testing.T) {
	t.Parallel()
	// 30 s past the last occurrence: every missed one is beyond the grace.
	now := t0 + 10*minute + 30_000
	d, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.Skip, GraceMs: 10_000})
	if d.Action != SkipLate || d.NextFireAtMs != t0+11*minute || d.ScheduledForMs != 0 {
		t.Fatalf("got %+v, want skip with cursor after now", d)
	}
}

// After an outage, skip passes over the occurrences later than the grace
// and admits the oldest one within it (the later ones collapse into that
// Run): the occurrence due as the server came back runs, it is not
// dropped with the backlog.
func TestSkipAfterAnOutageAdmitsTheOldestOccurrenceWithinTheGrace(t *testing.T) {
	t.Parallel()
	now := t0 + 10*minute + 5
	d, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.Skip, GraceMs: minute})
	want := []Passed{{Reason: PassMisfire, FirstMs: t0, LastMs: t0 + 9*minute, Count: 10}}
	if d.Action != Admit || d.ScheduledForMs != t0+10*minute || d.NextFireAtMs != t0+11*minute || !slices.Equal(d.Passed, want) {
		t.Fatalf("grace 1m: got %+v, want the on-time occurrence admitted and %+v", d, want)
	}
	d, _ = Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.Skip, GraceMs: 5 * minute})
	want = []Passed{
		{Reason: PassMisfire, FirstMs: t0, LastMs: t0 + 5*minute, Count: 6},
		{Reason: PassCollapsed, FirstMs: t0 + 7*minute, LastMs: t0 + 10*minute, Count: 4},
	}
	if d.Action != Admit || d.ScheduledForMs != t0+6*minute || !slices.Equal(d.Passed, want) {
		t.Fatalf("grace 5m: got %+v, want the oldest within the grace admitted and %+v", d, want)
	}
}

// A grace of 0 and a catch-up window of 0s still run the occurrences
// decided on time (within OnTimeMs): a decision always comes a little
// after its instant, and without the floor such a trigger never ran.
func TestAZeroGraceOrCatchUpWindowStillAdmitsAnOccurrenceDecidedOnTime(t *testing.T) {
	t.Parallel()
	skip, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + 3, Policy: trigger.Skip})
	window, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + 3, Policy: trigger.FireOnce, HasCatchUpWindow: true})
	for name, d := range map[string]Decision{"skip, grace 0": skip, "fire_once, window 0s": window} {
		if d.Action != Admit || d.ScheduledForMs != t0 || len(d.Passed) != 0 {
			t.Errorf("%s: got %+v, want the occurrence decided 3 ms late admitted", name, d)
		}
	}
	late, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + OnTimeMs + 1, Policy: trigger.Skip})
	if late.Action != SkipLate || late.NextFireAtMs != t0+minute {
		t.Fatalf("skip, grace 0, decided past OnTimeMs: got %+v, want it passed", late)
	}
}

func TestLateWithinGraceWithSkipStillAdmits(t *testing.T) {
	t.Parallel()
	d, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + minute, Policy: trigger.Skip, GraceMs: minute})
	if d.Action != Admit || d.ScheduledForMs != t0 {
		t.Fatalf("got %+v, want admit (exactly at the grace limit)", d)
	}
}

func TestFireOnceAdmitsOnlyTheOldestAndJumpsPastNow(t *testing.T) {
	t.Parallel()
	now := t0 + 60*minute + 1
	d, _ := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: trigger.FireOnce, GraceMs: minute})
	if d.Action != Admit || d.ScheduledForMs != t0 {
		t.Fatalf("got %+v, want the oldest occurrence %d", d, t0)
	}
	if d.NextFireAtMs != t0+61*minute {
		t.Fatalf("cursor %d, want first occurrence after now %d: the backlog must not be replayed", d.NextFireAtMs, t0+61*minute)
	}
}

func TestNextCursorIsStrictlyGreaterThanDue(t *testing.T) {
	t.Parallel()
	for _, now := range []int64{t0, t0 + 1, t0 + minute - 1, t0 + minute, t0 + 100*minute} {
		for _, pol := range []trigger.MisfirePolicy{trigger.Skip, trigger.FireOnce} {
			d, err := Decide(Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: now, Policy: pol, GraceMs: minute})
			if err != nil {
				t.Fatal(err)
			}
			if d.NextFireAtMs <= d.DueMs || (d.Action != Initialize && d.NextFireAtMs <= now) {
				t.Fatalf("now=%d policy=%s: %+v", now, pol, d)
			}
		}
	}
}

func TestOnlyAdmitCarriesAScheduledTime(t *testing.T) {
	t.Parallel()
	// last_scheduled_at changes only on admit: the decision exposes a
	// scheduled time for admits alone, and stores write it from there.
	cases := []Input{
		{Schedule: everyMinute(t), CursorMs: cursor(t0 + minute), NowMs: t0, Policy: trigger.Skip, GraceMs: minute},
		{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + 10*minute, Policy: trigger.Skip, GraceMs: minute},
		{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + 10*minute, Policy: trigger.FireOnce, GraceMs: minute},
	}
	for _, in := range cases {
		d, _ := Decide(in)
		if (d.Action == Admit) != (d.ScheduledForMs != 0) {
			t.Fatalf("%+v: scheduled time set on a non-admit or missing on an admit", d)
		}
	}
}

func TestDecideIsPure(t *testing.T) {
	t.Parallel()
	in := Input{Schedule: everyMinute(t), CursorMs: cursor(t0), NowMs: t0 + 3*minute, Policy: trigger.FireOnce, GraceMs: minute}
	a, _ := Decide(in)
	for i := 0; i < 100; i++ {
		if b, _ := Decide(in); !b.Equal(a) {
			t.Fatalf("decision changed between calls: %+v vs %+v", a, b)
		}
	}
}

func TestNeverFiringExpressionFailsInsteadOfLooping(t *testing.T) {
	t.Parallel()
	s, err := cron.Parse("0 0 30 2 *", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decide(Input{Schedule: s, RevisionCreatedAtMs: t0, NowMs: t0, Policy: trigger.Skip}); err == nil {
		t.Fatal("decided a cursor for an expression with no occurrence")
	}
}

func TestIdempotencyKeyFormat(t *testing.T) {
	t.Parallel()
	got := IdempotencyKey("0193a8a0-0000-7000-8000-000000000001", 3, 1790000000000)
	const want = "ql3:cron:v1:0193a8a0-0000-7000-8000-000000000001:3:1790000000000"
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}
