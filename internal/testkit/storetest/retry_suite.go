package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// RunRetry runs the retry policy's contract against an adapter: an
// attempt that ends in an outcome the policy lists, with attempts left,
// keeps its end while its Run waits out the backoff in retry_wait; after
// it, the Run is queued again with Attempt N + 1, and the last attempt's
// end finishes the Run. The states, events and attempt numbers are the
// same on every store; a Run waiting to retry is unfinished (for the
// overlap policies) and a cancel ends it at once.
func RunRetry(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"AFailedAttemptIsRetriedAfterItsBackoffUpToMaxAttempts":  testRetryUpToMaxAttempts,
		"ALostAttemptIsRetriedAndAnOutcomeNotListedEndsTheRun":   testRetryOnlyListedOutcomes,
		"ACancelOfARunWaitingToRetryCancelsItsNextAttempt":       testRetryWaitCancelled,
		"ARunWaitingToRetryIsUnfinishedForTheOverlapPolicies":    testRetryWaitUnfinished,
		"ALaterOccurrenceUnderCancelPreviousCancelsARetryingRun": testRetryWaitCancelledByLaterOccurrence,
		"OnlyTheAttemptThatFinishesTheRunNotifies":               testRetriedAttemptsNotifyNothing,
		"ARetriedRunWaitsInTheQueueFromItsRequeue":               testRetryRequeueRestartsTheQueueWait,
		"AQueueOneRunRetryingHasStartedAndIsNotTheWaitingOne":    testQueueOneRetryingRunHasStarted,
		"AFinishedRunsRanTimeAddsUpItsAttemptsAlone":             testRanAddsUpItsAttempts,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// retryBackoff is short, as the database's clock is waited for on
// PostgreSQL.
const retryBackoff = 300 * time.Millisecond

// checkedBackoff is the backoff of the tests that look at a Run while it
// waits out its backoff. On PostgreSQL the wait is real, and on a loaded
// two-core machine a retryBackoff could pass before the look: the test's
// requeue came up to 0.83 s after the attempt's end, and the lease sweep
// that ends an attempt lost requeues, in a statement of its own after
// that end, the Runs whose backoff has passed.
const checkedBackoff = 2 * time.Second

// retryDefs publishes project name with a task under policy and a quiet
// trigger under overlap, and initialises its schedule row.
func retryDefs(t *testing.T, f Fixture, name string, policy task.RetryPolicy, overlap trigger.OverlapPolicy) defs {
	t.Helper()
	p := newProject(t, f, name)
	spec := commandSpec("job", true)
	spec.Command.Retry = policy
	tk := publishTask(t, f, p.ID, ids.New(), 0, spec)
	c := quietCron(t, f)
	c.Overlap = overlap
	tg := publishTrigger(t, f, p.ID, ids.New(), tk, 0, trigger.Spec{Name: "tick", Enabled: true, Cron: c})
	initialise(t, f)
	return defs{Project: p, Task: tk, Trigger: tg}
}

// retryStep is one of a Run's events that says how its attempts went:
// the event's name, the attempt it names and, for run.retry_wait, the
// next one.
type retryStep struct {
	Name        string
	Attempt     int64
	NextAttempt int64
}

// retrySteps are the Run's events ending an attempt or queueing one
// after a backoff, in order: the part of its history both stores write
// alike (the steps of a start differ: a worker's grant on the cluster).
func retrySteps(t *testing.T, d run.Detail) []retryStep {
	t.Helper()
	var out []retryStep
	for _, e := range d.Events {
		var p struct {
			Attempt     int64  `json:"attempt"`
			NextAttempt int64  `json:"nextAttempt"`
			Reason      string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(e.Payload), &p); err != nil {
			t.Fatalf("event %s payload %s: %v", e.Name, e.Payload, err)
		}
		switch e.Name {
		case run.EventRetryWait, run.EventFailed, run.EventTimedOut, run.EventLost, run.EventSucceeded:
		case run.EventQueued:
			if p.Reason != "retry" {
				continue
			}
		default:
			continue
		}
		out = append(out, retryStep{Name: e.Name, Attempt: p.Attempt, NextAttempt: p.NextAttempt})
	}
	return out
}

// attemptStates is each attempt's number and state, in order.
func attemptStates(d run.Detail) []string {
	var out []string
	for _, a := range d.Attempts {
		out = append(out, fmt.Sprintf("%d %s", a.Number, a.State))
	}
	return out
}

func runDetail(t *testing.T, f Fixture, id string) run.Detail {
	t.Helper()
	d, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatalf("read run %s: %v", id, err)
	}
	return d
}

func requeue(t *testing.T, f Fixture, want int) {
	t.Helper()
	n, err := f.RequeueRetries(t.Context())
	if err != nil || n != want {
		t.Fatalf("requeue: %d Runs, %v; want %d", n, err, want)
	}
}

// requeueInsideBackoff asks for a requeue while runID waits out the
// backoff ending at availableAtMs, and checks that nothing is queued. The
// adapter's clock is read after the requeue, so the check holds whenever
// the requeue certainly ran inside the backoff: on PostgreSQL, whose clock
// is real, a loaded machine may spend the whole backoff before the
// requeue, which then rightly queues the Run. It reports whether the Run
// still waits to retry.
func requeueInsideBackoff(t *testing.T, f Fixture, runID string, availableAtMs int64) (waiting bool) {
	t.Helper()
	n, err := f.RequeueRetries(t.Context())
	if err != nil {
		t.Fatalf("requeue: %v", err)
	}
	afterMs, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	state := runByID(t, f, runID).State
	switch {
	case afterMs < availableAtMs && (n != 0 || state != run.RetryWait):
		t.Fatalf("inside the backoff (until %d, now %d) the requeue queued %d Runs and the Run is %s; want none queued and retry_wait", availableAtMs, afterMs, n, state)
	case afterMs >= availableAtMs:
		t.Logf("the backoff (until %d) ended before the requeue could be checked inside it (now %d): this machine was slower than the backoff", availableAtMs, afterMs)
	}
	switch {
	case n == 0 && state == run.RetryWait:
		return true
	case n == 1 && state == run.Queued:
		return false
	}
	t.Fatalf("the requeue queued %d Runs and the Run is %s; want none and retry_wait, or it and queued", n, state)
	return false
}

// Three failures under {maxAttempts: 3, on: [failed]}: the first two are
// retried, each after its backoff and not before, the third finishes the
// Run failed.
func testRetryUpToMaxAttempts(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-failed", task.RetryPolicy{MaxAttempts: 3, BackoffMs: checkedBackoff.Milliseconds(), On: []string{task.RetryOnFailed}}, trigger.OverlapAllow)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	for n := 1; n <= 3; n++ {
		before, err := f.NowMs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		finished, err := f.Finish(t.Context(), id, run.AttemptFailed)
		if n == 3 {
			if err != nil || finished != run.Failed {
				t.Fatalf("attempt 3 failed: reports %q, %v; want the Run finished failed", finished, err)
			}
			break
		}
		if err != nil || finished != "" {
			t.Fatalf("attempt %d failed: reports %q, %v; want no finish (a retry follows)", n, finished, err)
		}
		rd := runDetail(t, f, id)
		if rd.Run.State != run.RetryWait || rd.Run.FinishedAtMs != nil {
			t.Fatalf("after attempt %d failed the Run is %s (finished at %v), want retry_wait and unfinished", n, rd.Run.State, rd.Run.FinishedAtMs)
		}
		last := rd.Events[len(rd.Events)-1]
		var p struct {
			AvailableAtMs int64  `json:"availableAtMs"`
			Outcome       string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(last.Payload), &p); err != nil || last.Name != run.EventRetryWait || p.Outcome != string(run.AttemptFailed) ||
			p.AvailableAtMs < before+checkedBackoff.Milliseconds() || p.AvailableAtMs > last.CreatedAtMs+checkedBackoff.Milliseconds() {
			t.Fatalf("last event %s %s (%v); want run.retry_wait of a failed attempt, the next one available a backoff after the end", last.Name, last.Payload, err)
		}
		if requeueInsideBackoff(t, f, id, p.AvailableAtMs) {
			f.Elapse(checkedBackoff + 50*time.Millisecond)
			requeue(t, f, 1)
		}
		if r := runByID(t, f, id); r.State != run.Queued {
			t.Fatalf("after the backoff the Run is %s, want queued", r.State)
		}
		requeue(t, f, 0)
	}
	rd := runDetail(t, f, id)
	if got, want := attemptStates(rd), []string{"1 failed", "2 failed", "3 failed"}; !slices.Equal(got, want) {
		t.Fatalf("attempts %v, want %v", got, want)
	}
	want := []retryStep{
		{run.EventRetryWait, 1, 2}, {run.EventQueued, 2, 0},
		{run.EventRetryWait, 2, 3}, {run.EventQueued, 3, 0},
		{run.EventFailed, 3, 0},
	}
	if got := retrySteps(t, rd); !slices.Equal(got, want) {
		t.Fatalf("steps %+v, want %+v", got, want)
	}
	if rd.Run.State != run.Failed || rd.Run.FinishedAtMs == nil {
		t.Fatalf("the Run is %s (finished at %v), want failed", rd.Run.State, rd.Run.FinishedAtMs)
	}
}

// Under the default on: [lost], a lost attempt is retried; the next one
// timing out is not listed and ends the Run timed out with attempts left.
func testRetryOnlyListedOutcomes(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-lost", task.RetryPolicy{MaxAttempts: 3, BackoffMs: checkedBackoff.Milliseconds(), On: []string{task.RetryOnLost}}, trigger.OverlapAllow)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if finished, err := f.Finish(t.Context(), id, run.AttemptLost); err != nil || finished != "" {
		t.Fatalf("attempt 1 lost: reports %q, %v; want no finish (a retry follows)", finished, err)
	}
	if r := runByID(t, f, id); r.State != run.RetryWait {
		t.Fatalf("after the lost attempt the Run is %s, want retry_wait", r.State)
	}
	f.Elapse(checkedBackoff + 50*time.Millisecond)
	requeue(t, f, 1)
	if finished, err := f.Finish(t.Context(), id, run.AttemptTimedOut); err != nil || finished != run.TimedOut {
		t.Fatalf("attempt 2 timed out: reports %q, %v; want the Run finished timed_out", finished, err)
	}
	rd := runDetail(t, f, id)
	if got, want := attemptStates(rd), []string{"1 lost", "2 timed_out"}; !slices.Equal(got, want) {
		t.Fatalf("attempts %v, want %v", got, want)
	}
	want := []retryStep{{run.EventRetryWait, 1, 2}, {run.EventQueued, 2, 0}, {run.EventTimedOut, 2, 0}}
	if got := retrySteps(t, rd); !slices.Equal(got, want) {
		t.Fatalf("steps %+v, want %+v", got, want)
	}
}

// A cancel of a Run waiting to retry ends it at once, reported finished,
// with its next attempt cancelled unstarted; nothing is queued after the
// backoff.
func testRetryWaitCancelled(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-cancel", task.RetryPolicy{MaxAttempts: 3, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnFailed}}, trigger.OverlapAllow)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if _, err := f.Finish(t.Context(), id, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	r, eff, err := f.Cancel(t.Context(), id, "test")
	if err != nil || r.State != run.Cancelled || !eff.Finished {
		t.Fatalf("cancel of a Run waiting to retry: %s, effect %+v, %v; want it cancelled by this call", r.State, eff, err)
	}
	f.Elapse(retryBackoff + 50*time.Millisecond)
	requeue(t, f, 0)
	rd := runDetail(t, f, id)
	if got, want := attemptStates(rd), []string{"1 failed", "2 cancelled"}; !slices.Equal(got, want) || rd.Run.State != run.Cancelled {
		t.Fatalf("Run %s with attempts %v, want cancelled with %v", rd.Run.State, got, want)
	}
}

// Under overlap skip, the next occurrence is passed over while the Run
// waits to retry; once it has finished, the next is admitted.
func testRetryWaitUnfinished(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-skip", task.RetryPolicy{MaxAttempts: 2, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnFailed}}, trigger.OverlapSkip)
	id := d.Trigger.TriggerID
	first, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	if _, err := f.Finish(t.Context(), first.RunID, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	if _, res := admitDue(t, f, id); res.Outcome != schedule.Skipped {
		t.Fatalf("admission while the earlier Run waits to retry: %s (%s), want skipped", res.Outcome, res.Reason)
	}
	f.Elapse(retryBackoff + 50*time.Millisecond)
	requeue(t, f, 1)
	if finished, err := f.Finish(t.Context(), first.RunID, run.AttemptSucceeded); err != nil || finished != run.Succeeded {
		t.Fatalf("attempt 2 succeeded: reports %q, %v", finished, err)
	}
	if _, res := admitDue(t, f, id); res.Outcome != schedule.Admitted {
		t.Fatalf("admission after the retried Run succeeded: %s (%s), want admitted", res.Outcome, res.Reason)
	}
}

// Under overlap cancel_previous, an occurrence admitted while the earlier
// Run waits to retry cancels it, its next attempt unstarted.
func testRetryWaitCancelledByLaterOccurrence(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-cancel-previous", task.RetryPolicy{MaxAttempts: 2, BackoffMs: time.Hour.Milliseconds(), On: []string{task.RetryOnFailed}},
		trigger.OverlapCancelPrevious)
	id := d.Trigger.TriggerID
	first, _ := admitDue(t, f, id)
	if _, err := f.Finish(t.Context(), first.RunID, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	if _, res := admitDue(t, f, id); res.Outcome != schedule.Admitted {
		t.Fatalf("admission while the earlier Run waits to retry: %s (%s), want admitted", res.Outcome, res.Reason)
	}
	rd := runDetail(t, f, first.RunID)
	if got, want := attemptStates(rd), []string{"1 failed", "2 cancelled"}; !slices.Equal(got, want) || rd.Run.State != run.Cancelled {
		t.Fatalf("earlier Run %s with attempts %v, want cancelled with %v", rd.Run.State, got, want)
	}
}

// Rules on failed, lost and two failures in a row see nothing of the
// attempts that are retried — a failed one, a lost one — and only the
// last attempt's failure, which finishes the Run: one failed Run, one row.
func testRetriedAttemptsNotifyNothing(t *testing.T, f Fixture) {
	p := newProject(t, f, "retry-notify")
	spec := commandSpec("job", true)
	spec.Command.Retry = task.RetryPolicy{MaxAttempts: 3, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnFailed, task.RetryOnLost}}
	tk := publishTask(t, f, p.ID, ids.New(), 0, spec)
	tg := publishTrigger(t, f, p.ID, ids.New(), tk, 0, trigger.Spec{Name: "tick", Enabled: true, Cron: quietCron(t, f)})
	d := defs{Project: p, Task: tk, Trigger: tg}
	saveNotifications(t, f, &d, notify.Spec{Channels: []notify.Channel{hook}, Rules: []notify.Rule{
		{On: notify.OnFailed, Channel: "ops"}, {On: notify.OnLost, Channel: "ops"}, {On: notify.OnConsecutiveFailures, Channel: "ops", Count: 2},
	}})
	initialise(t, f)
	id := admitNow(t, f, tg.TriggerID, 1_000)
	for _, end := range []run.AttemptState{run.AttemptFailed, run.AttemptLost} {
		if finished, err := f.Finish(t.Context(), id, end); err != nil || finished != "" {
			t.Fatalf("attempt %s: reports %q, %v; want a retry", end, finished, err)
		}
		if ms := outbox(t, f); len(ms) != 0 {
			t.Fatalf("a retried %s attempt wrote %d notifications, want none", end, len(ms))
		}
		f.Elapse(retryBackoff + 50*time.Millisecond)
		requeue(t, f, 1)
	}
	if finished, err := f.Finish(t.Context(), id, run.AttemptFailed); err != nil || finished != run.Failed {
		t.Fatalf("attempt 3: reports %q, %v; want the Run finished failed", finished, err)
	}
	ms := outbox(t, f)
	if len(ms) != 1 || ms[0].RunID != id || ms[0].Event != notify.OnFailed {
		t.Fatalf("outbox %+v; want one row, the Run's failure", ms)
	}
}

// A Run queued again after its backoff waits in the queue from then, not
// from its admission: monitoring's oldest queued Run (and the Run's
// queuedAtMs) does not count its earlier attempt and its backoff as time
// spent waiting for a start.
func testRetryRequeueRestartsTheQueueWait(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-queue-wait", task.RetryPolicy{MaxAttempts: 2, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnFailed}}, trigger.OverlapAllow)
	first, res := admitDue(t, f, d.Trigger.TriggerID)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("admission: %s (%s)", res.Outcome, res.Reason)
	}
	admittedAt := runDetail(t, f, first.RunID).Run.QueuedAtMs
	if _, err := f.Finish(t.Context(), first.RunID, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	if snap := monitor(t, f, schedule.MonitorLimit); snap.OldestQueuedAtMs != nil {
		t.Fatalf("oldest queued at %d while the only Run waits to retry; want none queued", *snap.OldestQueuedAtMs)
	}
	f.Elapse(retryBackoff + 50*time.Millisecond)
	requeue(t, f, 1)
	snap := monitor(t, f, schedule.MonitorLimit)
	queuedAt := runDetail(t, f, first.RunID).Run.QueuedAtMs
	if queuedAt < admittedAt+retryBackoff.Milliseconds() || snap.OldestQueuedAtMs == nil || *snap.OldestQueuedAtMs != queuedAt {
		t.Fatalf("requeued Run queued at %d (admitted at %d), the oldest queued at %v; want both at the requeue, at least the %v backoff after admission",
			queuedAt, admittedAt, snap.OldestQueuedAtMs, retryBackoff)
	}
}

// Under queue_one a Run retrying — waiting out its backoff, or queued
// again for its next attempt — has started: it is not the one Run that
// may wait unstarted, so the next occurrence is admitted to wait behind
// it, and only the one after that is passed over as overlap.
func testQueueOneRetryingRunHasStarted(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "retry-queue-one", task.RetryPolicy{MaxAttempts: 3, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnFailed}},
		trigger.OverlapQueueOne)
	id := d.Trigger.TriggerID
	first, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	if finished, err := f.Finish(t.Context(), first.RunID, run.AttemptFailed); err != nil || finished != "" {
		t.Fatalf("attempt 1 failed: reports %q, %v; want a retry", finished, err)
	}
	behind, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted || res.RunID != behind.RunID {
		t.Fatalf("admission while the earlier Run waits out its backoff: %s (%s), want admitted to wait behind it", res.Outcome, res.Reason)
	}
	if _, res := admitDue(t, f, id); res.Outcome != schedule.Skipped {
		t.Fatalf("admission beside the Run waiting behind the retrying one: %s (%s), want skipped", res.Outcome, res.Reason)
	}
	cancelRun(t, f, behind.RunID)
	f.Elapse(retryBackoff + 50*time.Millisecond)
	requeue(t, f, 1)
	if st := runDetail(t, f, first.RunID).Run.State; st != run.Queued {
		t.Fatalf("the retrying Run is %s after its backoff, want queued for attempt 2", st)
	}
	again, res := admitDue(t, f, id)
	if res.Outcome != schedule.Admitted || res.RunID != again.RunID {
		t.Fatalf("admission while the earlier Run is queued again for its next attempt: %s (%s), want admitted to wait behind it", res.Outcome, res.Reason)
	}
	if refused := runNow(t, f, schedule.RunNowRequest{TriggerID: id, RequestID: "beside"}); refused.Created || refused.Unfinished != again.RunID || !refused.Waiting {
		t.Fatalf("run now beside the waiting Run: %+v; want refused naming %s as the one waiting", refused, again.RunID)
	}
}
