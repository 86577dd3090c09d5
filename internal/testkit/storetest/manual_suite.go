package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// manualCases are the guarantees of manual admission (run now, backfill).
// They do not depend on the commit path; RunSchedule runs each once.
func manualCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"RunNowAdmitsOneRunAndTheSameRequestIDNeverMakesTwo":            testRunNowIdempotent,
		"RunNowObeysTheOverlapPolicyUnlessForcedNamingTheEarlierRun":    testRunNowOverlap,
		"RunNowUnderCancelPreviousCancelsTheUnfinishedRun":              testRunNowCancelPrevious,
		"RunNowUnderQueueOneRefusedNamesTheRunAlreadyWaiting":           testRunNowQueueOneNamesTheWaitingRun,
		"RunNowRacingAClockAdmissionUnderSkipNeverMakesTwoRuns":         testRunNowRace,
		"BackfillAdmitsEachMissingOccurrenceWithItsCronKeyOnce":         testBackfill,
		"BackfillCountsAnOccurrenceThatRanAsExistingAndIsCapped":        testBackfillExistingAndCap,
		"BackfillFollowsTheCronAcrossDaylightSavingGapAndRepeat":        testBackfillDST,
		"BackfillRefusesAReversedOrFutureWindowAndAnUnknownTrigger":     testBackfillRefusals,
		"RerunRepeatsTheOriginalRevisionsLinkedAndOncePerRequestID":     testRerunRepeatsTheOriginal,
		"RerunOfAnUnfinishedRunIsRefusedAsNotFinished":                  testRerunRefusals,
		"ARunNamesTheRunsThatReRunItNewestFirst":                        testARunNamesTheRunsThatReRunIt,
		"ARerunAskedAgainAfterRetentionDeletedItsOriginalAnswersItsRun": testRerunAskedAgainAfterRetentionDeletedItsOriginal,
		"ACommandIsToldItsOccurrenceTriggerAndOriginWhateverMadeItsRun": testCommandIsToldItsOccurrence,
	}
}

func runNow(t *testing.T, f Fixture, r schedule.RunNowRequest) schedule.RunNowResult {
	t.Helper()
	res, err := f.Manual.TriggerRunNow(t.Context(), r)
	if err != nil {
		t.Fatalf("run %s now (request %q): %v", r.TriggerID, r.RequestID, err)
	}
	return res
}

func testRunNowIdempotent(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	id := d.Trigger.TriggerID
	initialise(t, f)
	before := row(t, f, id)
	first := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "deploy-42", Actor: "ops"})
	if !first.Created || ids.Validate("run", first.RunID) != nil || first.Skipped != "" {
		t.Fatalf("first request: %+v, want a created Run", first)
	}
	again := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "deploy-42", Actor: "ops"})
	if again.Created || again.RunID != first.RunID {
		t.Fatalf("repeated request: %+v, want the first one's Run %s, not created", again, first.RunID)
	}
	rs := runsOf(t, f, id)
	if len(rs) != 1 || rs[0].IdempotencyKey != schedule.ManualKey(id, "deploy-42") || rs[0].State != run.Queued ||
		rs[0].TriggerRevision != d.Trigger.Revision {
		t.Fatalf("runs %+v; want one queued Run keyed %s", rs, schedule.ManualKey(id, "deploy-42"))
	}
	if c := counts(t, f, id); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("counts %+v, want one Run, one Attempt, two events", c)
	}
	// Requests without an id get one each: two Runs more.
	a := runNow(t, f, schedule.RunNowRequest{TriggerID: id})
	b := runNow(t, f, schedule.RunNowRequest{TriggerID: id})
	if !a.Created || !b.Created || a.RunID == b.RunID {
		t.Fatalf("requests without an id: %+v and %+v, want two created Runs", a, b)
	}
	if got := row(t, f, id); !sameInt(got.NextFireAtMs, before.NextFireAtMs) || !sameInt(got.LastScheduledAtMs, before.LastScheduledAtMs) {
		t.Fatalf("row after run now %+v; a manual Run must leave the cursor %+v alone", got, before)
	}
	_, err := f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: ids.New()})
	requireCode(t, err, qlerror.NotFound, "run now of an unknown trigger")
	_, err = f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "a b"})
	requireCode(t, err, qlerror.Invalid, "a request id with a space")
}

// Refused by the overlap policy, a run now names the unfinished Run it
// was refused beside, for the user to look at or cancel.
func testRunNowOverlap(t *testing.T, f Fixture) {
	id := overlapDefs(t, f, trigger.OverlapSkip).Trigger.TriggerID
	first := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	if !first.Created {
		t.Fatalf("first request: %+v, want created", first)
	}
	skipped := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "two"})
	if skipped.Created || skipped.RunID != "" || skipped.Skipped != schedule.PassOverlap || skipped.Unfinished != first.RunID || skipped.Waiting {
		t.Fatalf("request behind an unfinished run: %+v, want skipped for overlap naming run %s", skipped, first.RunID)
	}
	// A clock admission behind the manual Run is passed over too.
	if _, res := admitDue(t, f, id); res.Outcome != schedule.Skipped {
		t.Fatalf("clock admission behind a manual run: %s (%s), want skipped", res.Outcome, res.Reason)
	}
	forced := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "two", Force: true})
	if !forced.Created || forced.RunID == first.RunID {
		t.Fatalf("forced request: %+v, want a new Run", forced)
	}
	if n := len(unfinished(t, f, id)); n != 2 {
		t.Fatalf("%d unfinished runs, want the first and the forced one", n)
	}
}

// Under queue_one a run now is refused because one Run already waits
// behind the unfinished one, and the refusal names that waiting Run, not
// the unfinished one it waits for.
func testRunNowQueueOneNamesTheWaitingRun(t *testing.T, f Fixture) {
	id := overlapDefs(t, f, trigger.OverlapQueueOne).Trigger.TriggerID
	first := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	whileRunning(t, f, first.RunID, func() {
		waiting := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "two"})
		if !first.Created || !waiting.Created || waiting.Skipped != "" {
			t.Fatalf("first two requests: %+v, %+v; want both created, the second to wait", first, waiting)
		}
		refused := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "three"})
		if refused.Created || refused.Skipped != schedule.PassOverlap || refused.Unfinished != waiting.RunID || !refused.Waiting {
			t.Fatalf("third request: %+v; want refused for overlap naming the waiting run %s (not the unfinished %s), as waiting", refused, waiting.RunID, first.RunID)
		}
	})
}

func testRunNowCancelPrevious(t *testing.T, f Fixture) {
	id := overlapDefs(t, f, trigger.OverlapCancelPrevious).Trigger.TriggerID
	first := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	second := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "two"})
	states := map[string]run.State{}
	for _, r := range runsOf(t, f, id) {
		states[r.ID] = r.State
	}
	if !second.Created || states[first.RunID] != run.Cancelled || states[second.RunID] != run.Queued {
		t.Fatalf("runs %v after %+v; want the first cancelled and the second queued", states, second)
	}
	// The request reports the Run it finished, and only that one, and
	// names the Run it cancelled.
	if first.Finished != (run.FinishCounts{}) || second.Finished != (run.FinishCounts{Cancelled: 1}) {
		t.Fatalf("finished %+v by the first request, %+v by the second; want nothing, then the first Run cancelled", first.Finished, second.Finished)
	}
	if len(first.Cancelled) != 0 || !slices.Equal(second.Cancelled, []string{first.RunID}) {
		t.Fatalf("cancelled %v by the first request, %v by the second; want none, then the first Run %s", first.Cancelled, second.Cancelled, first.RunID)
	}
	// A repeat of the request names its Run and finishes nothing again.
	if again := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "two"}); again.Created || again.Finished != (run.FinishCounts{}) {
		t.Fatalf("repeated request: %+v, want the same Run and nothing finished", again)
	}
}

// Requests to run a skip trigger now race a clock admission of it (and
// each other): one of them gets the Run, every other one is passed over.
func testRunNowRace(t *testing.T, f Fixture) {
	id := overlapDefs(t, f, trigger.OverlapSkip).Trigger.TriggerID
	makeDue(t, f, id, 1_000)
	cfg := schedule.RoundConfig{PageSize: 4, GraceMs: graceMs, Parallel: 1, NewIDs: ids.Fill}
	var wg sync.WaitGroup
	wg.Go(func() {
		if s, err := schedule.Round(t.Context(), f.Schedule, cfg); err != nil || s.Counts[schedule.Failed] != 0 {
			t.Errorf("round: %v %v %v", s.Counts, s.Errors, err)
		}
	})
	for i := range 3 {
		wg.Go(func() {
			if _, err := f.Manual.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: fmt.Sprint("race-", i)}); err != nil {
				t.Errorf("run now %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if n := len(runsOf(t, f, id)); n != 1 {
		t.Fatalf("%d runs of a skip trigger from one clock admission and three requests racing, want exactly one", n)
	}
}

func backfill(t *testing.T, f Fixture, r schedule.BackfillRequest) schedule.BackfillResult {
	t.Helper()
	res, err := f.Manual.TriggerBackfill(t.Context(), r)
	if err != nil {
		t.Fatalf("backfill %+v: %v", r, err)
	}
	return res
}

// scheduledTimes are the scheduled times of a trigger's Runs, ascending,
// after checking that each carries its clock admission's key.
func scheduledTimes(t *testing.T, f Fixture, triggerID string, revision int64) []int64 {
	t.Helper()
	var out []int64
	for _, r := range runsOf(t, f, triggerID) {
		if r.IdempotencyKey != schedule.IdempotencyKey(triggerID, revision, r.ScheduledForMs) {
			t.Fatalf("run %s keyed %s; want its cron key", r.ID, r.IdempotencyKey)
		}
		out = append(out, r.ScheduledForMs)
	}
	slices.Sort(out)
	return out
}

func cronTimes(t *testing.T, c trigger.Cron, from, to int64) []int64 {
	t.Helper()
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for at, ok := s.Next(from - 1); ok && at <= to; at, ok = s.Next(at) {
		out = append(out, at)
	}
	return out
}

func testBackfill(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	now := nowOf(t, f)
	from, to := now-5*60*60_000, now-1
	want := cronTimes(t, c, from, to)
	res := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: from, ToMs: to, Actor: "ops"})
	if res.Occurrences != len(want) || res.Admitted != len(want) || res.Existing != 0 || res.Truncated || len(res.RunIDs) != len(want) ||
		res.LastMs != want[len(want)-1] {
		t.Fatalf("backfill %+v; want all %d occurrences %v admitted", res, len(want), want)
	}
	if got := scheduledTimes(t, f, id, d.Trigger.Revision); !slices.Equal(got, want) {
		t.Fatalf("runs scheduled at %v, want %v", got, want)
	}
	again := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: from, ToMs: to})
	if again.Admitted != 0 || again.Existing != len(want) {
		t.Fatalf("repeated backfill %+v; want every occurrence existing", again)
	}
	if got := counts(t, f, id); got.Runs != len(want) {
		t.Fatalf("%d runs after a repeated backfill, want %d", got.Runs, len(want))
	}
}

func testBackfillExistingAndCap(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	now := nowOf(t, f)
	want := cronTimes(t, c, now-6*60*60_000, now-1)
	// The clock admits the second-newest occurrence first (fire_once: the
	// newest collapses into it).
	ran := want[len(want)-2]
	moveCursor(t, f, id, ran, offset(0))
	p := commitParams(t, takeOne(t, f))
	if res := commit(t, f, p); res.Outcome != schedule.Admitted || p.Decision.ScheduledForMs != ran {
		t.Fatalf("clock admission: %s (%s) of %d, want admitted %d", res.Outcome, res.Reason, p.Decision.ScheduledForMs, ran)
	}
	capped := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: want[0], ToMs: now - 1, Max: 2})
	if capped.Occurrences != 2 || capped.Admitted != 2 || !capped.Truncated || capped.LastMs != want[1] {
		t.Fatalf("capped backfill %+v; want the first two occurrences and truncated at %d", capped, want[1])
	}
	rest := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: want[0], ToMs: now - 1})
	// The newest occurrence collapsed into the clock's admission: it has
	// no Run, and the backfill gives it one.
	if rest.Occurrences != len(want) || rest.Existing != 3 || rest.Admitted != len(want)-3 || rest.Truncated {
		t.Fatalf("backfill %+v of %v; want the two capped ones and the admitted one existing, the others admitted", rest, want)
	}
	if got := scheduledTimes(t, f, id, d.Trigger.Revision); !slices.Equal(got, want) {
		t.Fatalf("runs scheduled at %v, want one per occurrence %v", got, want)
	}
}

func testBackfillDST(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "30 1,2 * * *", Timezone: "America/New_York", MisfirePolicy: trigger.FireOnce}
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	zone, err := time.LoadLocation(c.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	year := time.UnixMilli(nowOf(t, f)).In(zone).Year() - 1
	var all []int64
	for _, w := range [][2]time.Time{
		{time.Date(year, 3, 7, 0, 0, 0, 0, zone), time.Date(year, 3, 16, 0, 0, 0, 0, zone)},   // spring forward: 2:30 is skipped on one day
		{time.Date(year, 10, 31, 0, 0, 0, 0, zone), time.Date(year, 11, 9, 0, 0, 0, 0, zone)}, // fall back: 1:30 repeats on one day
	} {
		from, to := w[0].UnixMilli(), w[1].UnixMilli()
		want := cronTimes(t, c, from, to)
		res := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: from, ToMs: to})
		if res.Admitted != len(want) || res.Existing != 0 {
			t.Fatalf("backfill of %v: %+v, want the cron's %d occurrences", w, res, len(want))
		}
		all = append(all, want...)
	}
	got := scheduledTimes(t, f, id, d.Trigger.Revision)
	if !slices.Equal(got, all) {
		t.Fatalf("runs scheduled at %v, want the cron's own %v", got, all)
	}
	// Nine days of two wall times each; the fall-back day's repeated 1:30
	// fires once, the spring-forward day's missing 2:30 once after the gap.
	perDay := map[string]int{}
	for _, at := range got {
		perDay[time.UnixMilli(at).In(zone).Format("2006-01-02 15:04")]++
	}
	for k, n := range perDay {
		if n != 1 {
			t.Fatalf("wall time %s has %d runs, want one", k, n)
		}
	}
	if len(got) != 2*2*9 {
		t.Fatalf("%d runs over two nine-day windows of two daily wall times, want %d", len(got), 2*2*9)
	}
}

func testBackfillRefusals(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	id := d.Trigger.TriggerID
	initialise(t, f)
	now := nowOf(t, f)
	for name, r := range map[string]schedule.BackfillRequest{
		"reversed window":  {TriggerID: id, FromMs: now - 1_000, ToMs: now - 2_000},
		"future window":    {TriggerID: id, FromMs: now - 1_000, ToMs: now + 60*60_000},
		"negative cap":     {TriggerID: id, FromMs: now - 2_000, ToMs: now - 1_000, Max: -1},
		"cap over the max": {TriggerID: id, FromMs: now - 2_000, ToMs: now - 1_000, Max: schedule.MaxBackfill + 1},
	} {
		_, err := f.Manual.TriggerBackfill(t.Context(), r)
		requireCode(t, err, qlerror.Invalid, name)
	}
	_, err := f.Manual.TriggerBackfill(t.Context(), schedule.BackfillRequest{TriggerID: ids.New(), FromMs: now - 2_000, ToMs: now - 1_000})
	requireCode(t, err, qlerror.NotFound, "backfill of an unknown trigger")
	if got := counts(t, f, id); got.Runs != 0 {
		t.Fatalf("refused backfills wrote %d runs", got.Runs)
	}
}
