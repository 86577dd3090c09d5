package schedule

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

const jitterTrigger = "0193a8a0-0000-7000-8000-000000000003"

func TestJitterOffsetIsDeterministicAndWithinTheJitter(t *testing.T) {
	t.Parallel()
	for i := range int64(1000) {
		at := t0 + i*minute
		a := JitterOffset(jitterTrigger, at, 30_000)
		if a < 0 || a >= 30_000 {
			t.Fatalf("offset %d outside [0, 30000)", a)
		}
		if b := JitterOffset(jitterTrigger, at, 30_000); b != a {
			t.Fatalf("offset of %d changed between calls: %d vs %d", at, a, b)
		}
	}
	if JitterOffset(jitterTrigger, t0, 0) != 0 || FireAt(jitterTrigger, t0, 0) != t0 {
		t.Fatal("no jitter must mean no offset")
	}
	// Pinned so the hash cannot drift between builds: replicas of two
	// versions must agree on every occurrence's time.
	if got := JitterOffset(jitterTrigger, t0, 3_600_000); got != jitterGolden {
		t.Fatalf("jitter offset drifted: %d", got)
	}
}

const jitterGolden = 2952884

func TestJitterOffsetSpreadsOccurrencesAndTriggers(t *testing.T) {
	t.Parallel()
	// 10,000 occurrences of one trigger, and one occurrence of 10,000
	// triggers, over 10 buckets of a 10 s jitter: each bucket within 20 %
	// of the expected 1,000.
	const n, buckets, jitter = 10_000, 10, int64(10_000)
	over := map[string]func(i int) int64{
		"occurrences": func(i int) int64 { return JitterOffset(jitterTrigger, t0+int64(i)*1000, jitter) },
		"triggers": func(i int) int64 {
			return JitterOffset(fmt.Sprintf("0193a8a0-0000-7000-8000-%012d", i), t0, jitter)
		},
	}
	for name, offset := range over {
		var count [buckets]int
		for i := range n {
			count[offset(i)*buckets/jitter]++
		}
		for b, c := range count {
			if c < 800 || c > 1200 {
				t.Fatalf("%s: bucket %d holds %d of %d offsets; want about %d", name, b, c, n, n/buckets)
			}
		}
	}
}

func jittered(t *testing.T, now int64, cur *int64) Input {
	t.Helper()
	return Input{Schedule: everyMinute(t), CursorMs: cur, RevisionCreatedAtMs: t0 - minute, NowMs: now,
		Policy: trigger.FireOnce, GraceMs: minute, TriggerID: jitterTrigger, JitterMs: 50_000}
}

func TestJitterAdmitsAtTheJitteredInstantWithTheNominalTime(t *testing.T) {
	t.Parallel()
	off := JitterOffset(jitterTrigger, t0, 50_000)
	at := t0 + off
	if d, _ := Decide(jittered(t, at-1, cursor(t0))); d.Action != Initialize || d.NextFireAtMs != t0 || d.NextDueAtMs != at {
		t.Fatalf("1 ms before the jittered instant: %+v; want the row left at cursor %d due %d", d, t0, at)
	}
	d, err := Decide(jittered(t, at, cursor(t0)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != Admit || d.ScheduledForMs != t0 || d.FireAtMs != at {
		t.Fatalf("at the jittered instant: %+v; want admit of %d fired at %d", d, t0, at)
	}
	next := t0 + minute
	if d.NextFireAtMs != next || d.NextDueAtMs != FireAt(jitterTrigger, next, 50_000) {
		t.Fatalf("next cursor %d due %d; want %d due at its own jitter", d.NextFireAtMs, d.NextDueAtMs, next)
	}
	// A fresh row is initialised to its first occurrence's jittered time.
	if d, _ := Decide(jittered(t, t0-minute, nil)); d.Action != Initialize || d.NextDueAtMs != FireAt(jitterTrigger, d.NextFireAtMs, 50_000) {
		t.Fatalf("initialise: %+v", d)
	}
}

func TestMisfireGraceIsMeasuredFromTheJitteredTime(t *testing.T) {
	t.Parallel()
	at := FireAt(jitterTrigger, t0, 50_000)
	in := jittered(t, at+minute, cursor(t0))
	in.Policy = trigger.Skip
	if d, _ := Decide(in); d.Action != Admit {
		t.Fatalf("exactly the grace after the jittered time: %+v; want admit", d)
	}
	in.NowMs++
	if d, _ := Decide(in); d.Action != SkipLate {
		t.Fatalf("1 ms beyond the grace after the jittered time: %+v; want skip", d)
	}
}

func TestStartAtIsTheFirstOccurrence(t *testing.T) {
	t.Parallel()
	in := Input{Schedule: everyMinute(t), RevisionCreatedAtMs: t0, NowMs: t0, Policy: trigger.FireOnce, GraceMs: minute,
		StartAtMs: t0 + 10*minute + 1}
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != Initialize || d.NextFireAtMs != t0+11*minute || len(d.Passed) != 0 {
		t.Fatalf("got %+v, want the row initialised at the first occurrence at or after startAt, nothing passed", d)
	}
	in.NowMs = t0 + 30*minute
	if d, _ := Decide(in); d.Action != Admit || d.ScheduledForMs != t0+11*minute {
		t.Fatalf("late first decision %+v; want admit of the first occurrence after startAt", d)
	}
}

func TestEndAtEndsTheRowAndPassesWhatFellDueAfterIt(t *testing.T) {
	t.Parallel()
	end := t0 + 2*minute
	in := Input{Schedule: everyMinute(t), CursorMs: cursor(t0 + minute), RevisionCreatedAtMs: t0 - minute, NowMs: t0 + minute,
		Policy: trigger.FireOnce, GraceMs: minute, EndAtMs: end}
	d, _ := Decide(in)
	if d.Action != Admit || d.Ended || d.NextFireAtMs != end || d.NextDueAtMs != end {
		t.Fatalf("before the last occurrence: %+v; want admit and the last occurrence next", d)
	}
	in.CursorMs, in.NowMs = cursor(end), end
	d, _ = Decide(in)
	if d.Action != Admit || !d.Ended || d.NextFireAtMs != EndedCursor(end) || d.NextDueAtMs != 0 || len(d.Passed) != 0 {
		t.Fatalf("the last occurrence: %+v; want it admitted and the row ended", d)
	}
	// Decided late, 5 minutes after endAt: the last occurrence is still
	// admitted, the 5 after endAt are passed as outside the bounds.
	in.NowMs = end + 5*minute
	d, _ = Decide(in)
	want := Passed{Reason: PassOutsideBounds, FirstMs: end + minute, LastMs: end + 5*minute, Count: 5}
	if d.Action != Admit || !d.Ended || len(d.Passed) != 1 || d.Passed[0] != want {
		t.Fatalf("late: %+v; want admit, ended, passed %+v", d, want)
	}
	// An ended row decided again stays ended and passes nothing twice.
	in.CursorMs = cursor(EndedCursor(end))
	if d, _ := Decide(in); d.Action != Initialize || !d.Ended || len(d.Passed) != 0 || d.NextFireAtMs != EndedCursor(end) {
		t.Fatalf("ended row: %+v", d)
	}
	// A trigger created after its endAt ends at once, passing what fell
	// due since its creation.
	in.CursorMs, in.RevisionCreatedAtMs, in.NowMs = nil, end+minute, end+3*minute
	d, _ = Decide(in)
	want = Passed{Reason: PassOutsideBounds, FirstMs: end + minute, LastMs: end + 3*minute, Count: 3}
	if d.Action != Initialize || !d.Ended || len(d.Passed) != 1 || d.Passed[0] != want {
		t.Fatalf("created after endAt: %+v; want ended, passed %+v", d, want)
	}
}

func catchUp(t *testing.T, now, window int64) Input {
	t.Helper()
	return Input{Schedule: everyMinute(t), CursorMs: cursor(t0), RevisionCreatedAtMs: t0 - minute, NowMs: now,
		Policy: trigger.FireOnce, GraceMs: minute, CatchUpWindowMs: window, HasCatchUpWindow: true}
}

func TestCatchUpWindowPassesOlderOccurrencesAndAdmitsTheOldestInside(t *testing.T) {
	t.Parallel()
	// 60 missed minutes, a 10-minute window: t0 … t0+49m are older than
	// it, t0+50m is the oldest inside and is admitted.
	d, _ := Decide(catchUp(t, t0+60*minute, 10*minute))
	want := Passed{Reason: PassCatchUpWindow, FirstMs: t0, LastMs: t0 + 49*minute, Count: 50}
	if d.Action != Admit || d.ScheduledForMs != t0+50*minute || d.FireAtMs != t0+50*minute || d.NextFireAtMs != t0+61*minute {
		t.Fatalf("got %+v; want admit of %d", d, t0+50*minute)
	}
	// The later missed minutes collapse into the admitted Run.
	collapsed := Passed{Reason: PassCollapsed, FirstMs: t0 + 51*minute, LastMs: t0 + 60*minute, Count: 10}
	if len(d.Passed) != 2 || d.Passed[0] != want || d.Passed[1] != collapsed {
		t.Fatalf("passed %+v, want %+v then %+v", d.Passed, want, collapsed)
	}
	// Inside the window: unchanged fire_once.
	if d, _ := Decide(catchUp(t, t0+5*minute, 10*minute)); d.Action != Admit || d.ScheduledForMs != t0 || len(d.Passed) != 1 || d.Passed[0].Reason != PassCollapsed {
		t.Fatalf("inside the window: %+v", d)
	}
	// Without a window: the oldest, however old (today's fire_once).
	in := catchUp(t, t0+60*minute, 0)
	in.HasCatchUpWindow = false
	if d, _ := Decide(in); d.Action != Admit || d.ScheduledForMs != t0 || len(d.Passed) != 1 || d.Passed[0].Reason != PassCollapsed || d.Passed[0].Count != 60 {
		t.Fatalf("no window: %+v; want the oldest admitted and the 60 later minutes collapsed", d)
	}
}

func TestCatchUpWindowWithNothingInsidePassesEverything(t *testing.T) {
	t.Parallel()
	hourly, err := cron.Parse("0 * * * *", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	in := catchUp(t, t0+3*60*minute+30*minute, 10*minute)
	in.Schedule = hourly
	d, _ := Decide(in)
	want := Passed{Reason: PassCatchUpWindow, FirstMs: t0, LastMs: t0 + 3*60*minute, Count: 4}
	if d.Action != SkipLate || d.NextFireAtMs != t0+4*60*minute || len(d.Passed) != 1 || d.Passed[0] != want {
		t.Fatalf("got %+v; want skip past now with %+v", d, want)
	}
}

func TestCatchUpWindowWaitsForAJitteredOccurrenceInside(t *testing.T) {
	t.Parallel()
	// Every minute, 50 s jitter, a zero window, decided after t0+3m but
	// before its jittered time: t0 … t0+2m are passed and the row waits
	// for t0+3m rather than skipping it.
	next := t0 + 3*minute
	off := JitterOffset(jitterTrigger, next, 50_000)
	if off < 2 {
		t.Fatalf("the pinned offset %d leaves no instant between the nominal and the jittered time", off)
	}
	in := catchUp(t, next+off/2, 0)
	in.TriggerID, in.JitterMs = jitterTrigger, 50_000
	d, _ := Decide(in)
	if d.Action != SkipLate || d.NextFireAtMs != next || d.NextDueAtMs != next+off {
		t.Fatalf("got %+v; want the row moved to %d, due at %d", d, next, next+off)
	}
	want := Passed{Reason: PassCatchUpWindow, FirstMs: t0, LastMs: next - minute, Count: 3}
	if len(d.Passed) != 1 || d.Passed[0] != want {
		t.Fatalf("passed %+v, want %+v", d.Passed, want)
	}
}

func TestCatchUpWindowRequiresFireOnceAndTheTriggerValidatesIt(t *testing.T) {
	t.Parallel()
	c := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip, HasCatchUpWindow: true, CatchUpWindowMs: 1}
	if err := (trigger.Spec{Name: "a", Enabled: true, Cron: c}).Validate(t0); err == nil {
		t.Fatal("a catch-up window under misfire: skip was accepted")
	}
}

// DST (docs/architecture.md, "Cron time and daylight saving"): jitter is
// added to the instant the DST rule gives, never to a wall time, and
// bounds compare instants. New York 2026: spring forward Mar 8 07:00Z
// (02:00–02:59 missing), fall back Nov 1 06:00Z (01:00–01:59 twice).
func TestJitterAndBoundsFollowTheDSTRule(t *testing.T) {
	t.Parallel()
	s, err := cron.Parse("30 2 * * *", "America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	ms := func(v string) int64 {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t.Fatal(err)
		}
		return at.UnixMilli()
	}
	const jitter = 30 * minute
	gap := ms("2026-03-08T07:00:00Z") // the missing 02:30 fires once at the end of the gap
	in := Input{Schedule: s, RevisionCreatedAtMs: ms("2026-03-07T12:00:00Z"), NowMs: ms("2026-03-07T12:00:00Z"),
		Policy: trigger.FireOnce, GraceMs: minute, TriggerID: jitterTrigger, JitterMs: jitter}
	d, _ := Decide(in)
	if d.NextFireAtMs != gap || d.NextDueAtMs != FireAt(jitterTrigger, gap, jitter) || d.NextDueAtMs-gap >= jitter {
		t.Fatalf("spring forward: %+v; want the nominal %d jittered by less than %d", d, gap, jitter)
	}
	in.CursorMs, in.NowMs = cursor(gap), d.NextDueAtMs
	if d, _ := Decide(in); d.Action != Admit || d.ScheduledForMs != gap || d.NextFireAtMs != ms("2026-03-09T06:30:00Z") {
		t.Fatalf("admitted across the gap: %+v", d)
	}
	// startAt inside the missing hour: the gap firing at its end counts.
	in.CursorMs, in.NowMs, in.StartAtMs = nil, ms("2026-03-07T12:00:00Z"), ms("2026-03-08T06:45:00Z")
	if d, _ := Decide(in); d.NextFireAtMs != gap {
		t.Fatalf("startAt in the gap: cursor %d, want %d", d.NextFireAtMs, gap)
	}
	// Fall back: 01:30 fires once, at its first (EDT) occurrence; an endAt
	// between the two wall-clock 01:30s ends the row after the first.
	fb, err := cron.Parse("30 1 * * *", "America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	first := ms("2026-11-01T05:30:00Z")
	in = Input{Schedule: fb, CursorMs: cursor(first), RevisionCreatedAtMs: first - 60*minute, NowMs: FireAt(jitterTrigger, first, jitter),
		Policy: trigger.FireOnce, GraceMs: minute, TriggerID: jitterTrigger, JitterMs: jitter, EndAtMs: ms("2026-11-01T06:30:00Z")}
	d, _ = Decide(in)
	if d.Action != Admit || d.ScheduledForMs != first || !d.Ended || len(d.Passed) != 0 {
		t.Fatalf("fall back: %+v; want the first 01:30 admitted and the row ended without a second firing", d)
	}
}

// horizonStore reports a take's horizon: nothing else due.
type horizonStore struct {
	recordingStore
}

func (s *horizonStore) ScheduleTakeHorizon(ctx context.Context, p TakeParams) ([]Ticket, TakeHorizon, error) {
	tks, err := s.ScheduleTake(ctx, p)
	return tks, TakeHorizon{NowMs: t0}, err
}

// A page wakes its scheduler at the jittered instant its rows' new cursors
// fall due, not at their nominal time; an ended row never wakes it.
func TestAPageWakesAtTheJitteredDueTimeOfItsNewCursors(t *testing.T) {
	t.Parallel()
	jit := ticket(jitterTrigger, cursor(t0), t0+5, trigger.FireOnce)
	jit.Cron.JitterMs = 50_000
	jit.ObservedAtMs = FireAt(jitterTrigger, t0, 50_000)
	ending := ticket("ending", cursor(t0), t0+5, trigger.FireOnce)
	ending.Cron.EndAtMs = t0 + 1
	cfg := RoundConfig{PageSize: 16, Parallel: 1, GraceMs: minute, NewIDs: ids.Fill}
	p, err := TakePage(t.Context(), &horizonStore{recordingStore{tickets: []Ticket{jit, ending}}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := FireAt(jitterTrigger, t0+minute, 50_000)
	if want == t0+minute {
		t.Fatal("the pinned jitter of the next cursor is 0: it cannot tell the jittered time from the nominal one")
	}
	if p.sum.Next == nil || p.sum.Next.AtMs != want {
		t.Fatalf("the page wakes at %+v; want the next cursor's jittered due time %d", p.sum.Next, want)
	}
}
