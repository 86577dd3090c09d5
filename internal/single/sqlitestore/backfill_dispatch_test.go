package sqlitestore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// backfillBacklog backfills the hour that ended an hour ago of an
// every-minute trigger (60 Runs, older than any Run admitted after) and
// returns the backfilled Run ids, oldest first.
func (e *env) backfillBacklog(t *testing.T, name string) []string {
	t.Helper()
	d := e.defs(t, name, everyMinute)
	now := e.clock.NowMs()
	res, err := e.store.TriggerBackfill(t.Context(), schedule.BackfillRequest{
		TriggerID: d.Trigger.TriggerID, FromMs: now - 2*time.Hour.Milliseconds(), ToMs: now - time.Hour.Milliseconds() - 1, Actor: "ops"})
	if err != nil || res.Admitted != 60 {
		t.Fatalf("backfill %+v, %v; want 60 Runs", res, err)
	}
	return res.RunIDs
}

// pendingOrder is the Runs the dispatcher would start now, in its order.
func (e *env) pendingOrder(t *testing.T, limit int) []string {
	t.Helper()
	list, err := e.store.AttemptsPending(t.Context(), limit)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.RunID
	}
	return out
}

// A backlog of backfilled Runs queued before a clock Run, a run-now and a
// re-run does not hold them back: the dispatcher's round starts those
// three first, oldest first, and only then the backfill's Runs.
func TestTheClockRunNowAndRerunStartBeforeAnEarlierBackfillBacklog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.defs(t, "done", storetest.QuietCron(e.clock.NowMs()))
	finished, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: done.Trigger.TriggerID, RequestID: "finished"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.CancelRun(t.Context(), finished.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	backlog := e.backfillBacklog(t, "history")
	clock := e.admit(t, e.defs(t, "clock", everyMinute).Trigger.TriggerID)
	now, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: e.defs(t, "manual", storetest.QuietCron(e.clock.NowMs())).Trigger.TriggerID, RequestID: "now"})
	if err != nil || !now.Created {
		t.Fatalf("run now: %+v, %v", now, err)
	}
	rerun, err := e.store.RunRerun(t.Context(), schedule.RerunRequest{RunID: finished.RunID, RequestID: "again"})
	if err != nil || !rerun.Created {
		t.Fatalf("re-run: %+v, %v", rerun, err)
	}
	want := []string{clock, now.RunID, rerun.RunID, backlog[0], backlog[1]}
	if got := e.pendingOrder(t, 5); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the dispatcher's queue starts with %v,\nwant the clock's Run, the run-now and the re-run before the backfill: %v", got, want)
	}
}

// A round's slots the other Runs leave free go to the backfill, oldest
// first: a backlog drains behind them at full speed, and alone it fills
// every slot.
func TestABackfillBacklogFillsTheSlotsTheOtherRunsLeave(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	backlog := e.backfillBacklog(t, "history")
	if got := e.pendingOrder(t, 16); strings.Join(got, " ") != strings.Join(backlog[:16], " ") {
		t.Fatalf("with only the backfill queued a round of 16 starts %v,\nwant its 16 oldest Runs %v", got, backlog[:16])
	}
	clock := e.admit(t, e.defs(t, "clock", everyMinute).Trigger.TriggerID)
	want := append([]string{clock}, backlog[:15]...)
	if got := e.pendingOrder(t, 16); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("with a clock Run queued a round of 16 starts %v,\nwant the clock's Run and then the backfill's 15 oldest %v", got, want)
	}
}

// A backfilled Run that failed and waits out its retry stays behind the
// other queued Runs once requeued: its next attempt keeps the backfill's
// place, though it was created before the clock's Run.
func TestABackfilledRunsRetryStillStartsAfterTheOtherRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tg := e.retryingTrigger(t, "history")
	now := e.clock.NowMs()
	res, err := e.store.TriggerBackfill(t.Context(), schedule.BackfillRequest{
		TriggerID: tg.TriggerID, FromMs: now - 2*time.Hour.Milliseconds(), ToMs: now - time.Hour.Milliseconds() - 1})
	if err != nil || res.Admitted != 60 {
		t.Fatalf("backfill %+v, %v; want 60 Runs", res, err)
	}
	retried := res.RunIDs[0]
	a := e.pending(t, retried)
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptFailed, ErrorCode: "exit_1"}); err != nil {
		t.Fatal(err)
	}
	clock := e.admit(t, e.defs(t, "clock", everyMinute).Trigger.TriggerID)
	e.clock.Advance(2 * time.Second)
	if n, _, err := e.store.RetriesRequeue(t.Context(), 10); err != nil || n != 1 {
		t.Fatalf("requeue: %d Runs, %v; want the backfilled Run's retry", n, err)
	}
	if got := e.pendingOrder(t, 61); len(got) != 61 || got[0] != clock || !slices.Contains(got[1:], retried) {
		t.Fatalf("the dispatcher's queue is %v;\nwant the clock's Run %s first and the retried backfilled Run %s behind it", got, clock, retried)
	}
}
