package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// TestCancelPreviousCancelsOnlyTogetherWithItsAdmission: under
// cancel_previous the commit cancels the trigger's unfinished Run and then
// writes the admission behind a fence. When the claim expires in database
// time between the two, the fence fails and nothing may commit — not the
// admission, and not the cancel either: the previous Run stays unfinished,
// no run.cancelled event exists and no finished Run is counted. The next
// claim then admits the occurrence and cancels the previous Run once.
func TestCancelPreviousCancelsOnlyTogetherWithItsAdmission(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	short := s.openRuntime(t, "replica-a", expiringLease)
	c := s.cancelPreviousTrigger(t, "alpha")
	s.outlastClaimWhileCancelling(t)
	res, err := s.runtime.ScheduleCommit(t.Context(), params(t, s.takeOne(t, short)))
	if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonClaimExpired || err != nil || res.Finished != (run.FinishCounts{}) {
		t.Fatalf("commit whose claim expired after the cancel: %+v, %v; want raced (claim_expired), nothing finished", res, err)
	}
	s.requireCancelledBeforeTheFence(t, c)
	s.requireAdmittedOnceWithTheCancel(t, c, func(p schedule.CommitParams) schedule.CommitResult {
		res, err := s.runtime.ScheduleCommit(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	})
}

// TestCancelPreviousCancelsOnlyTogetherWithItsAdmissionOnAPage is the same
// on the page path, where the expired row must cost the page's other rows
// nothing: they are admitted by the same call.
func TestCancelPreviousCancelsOnlyTogetherWithItsAdmissionOnAPage(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	short := s.openRuntime(t, "replica-a", expiringLease)
	other := s.publish(t, "beta")
	s.initialiseAll(t, s.runtime, 1)
	c := s.cancelPreviousTrigger(t, "alpha")
	s.outlastClaimWhileCancelling(t)
	// Only alpha's claim is short, so only its claim expires during the
	// commit.
	expiring := params(t, s.takeOne(t, short))
	if err := s.makeDue(t.Context(), other.trigger.TriggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	lasting := params(t, s.takeOne(t, s.runtime))
	res := commitPage(t, s.runtime, []schedule.CommitParams{expiring, lasting})
	if r := res[0]; r.Outcome != schedule.Raced || r.Reason != schedule.ReasonClaimExpired || r.Err != nil || r.Finished != (run.FinishCounts{}) {
		t.Fatalf("row whose claim expired after the cancel: %+v; want raced (claim_expired), nothing finished", r)
	}
	if r := res[1]; r.Outcome != schedule.Admitted || r.RunID != lasting.RunID || r.Err != nil {
		t.Fatalf("the page's other row: %+v; want admitted as %s", r, lasting.RunID)
	}
	if n := s.count(t, `SELECT count(*) FROM qinglong.runs WHERE id = $1 AND state = 'queued'`, lasting.RunID); n != 1 {
		t.Fatalf("the page's other row has %d queued Runs; want its admission", n)
	}
	s.requireCancelledBeforeTheFence(t, c)
	s.requireAdmittedOnceWithTheCancel(t, c, func(p schedule.CommitParams) schedule.CommitResult {
		return commitPage(t, s.runtime, []schedule.CommitParams{p})[0]
	})
}

// expiringLease is the claim lease of the ticket whose claim expires during
// its commit: short, so that the test waits little for the expiry, and long
// enough for the commit to pass verification before it (the fixture's
// counter fails the test if it did not).
const expiringLease = 2 * MinLease

// cancelledTrigger is a cancel_previous trigger with an unfinished Run,
// claimed and due.
type cancelledTrigger struct {
	triggerID, previous string
}

// cancelPreviousTrigger publishes a cancel_previous trigger, initialises
// it, runs it now (the Run stays queued: unfinished) and makes it due.
func (s *store) cancelPreviousTrigger(t *testing.T, name string) cancelledTrigger {
	t.Helper()
	now, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cron := storetest.QuietCron(now)
	cron.Overlap = trigger.OverlapCancelPrevious
	d := s.publishCron(t, name, cron)
	for _, p := range paramsOf(t, []schedule.Ticket{s.takeOne(t, s.runtime)}) {
		if res, err := s.runtime.ScheduleCommit(t.Context(), p); err != nil || res.Outcome != schedule.Initialized {
			t.Fatalf("initialise: %+v, %v", res, err)
		}
	}
	previous, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: d.trigger.TriggerID, RequestID: "previous"})
	if err != nil || !previous.Created {
		t.Fatalf("run now: %+v, %v", previous, err)
	}
	if err := s.makeDue(t.Context(), d.trigger.TriggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	return cancelledTrigger{triggerID: d.trigger.TriggerID, previous: previous.RunID}
}

// takeOne takes with rt and expects exactly one ticket.
func (s *store) takeOne(t *testing.T, rt *Runtime) schedule.Ticket {
	t.Helper()
	tks := s.takeAll(t, rt)
	if len(tks) != 1 {
		t.Fatalf("took %d, want 1", len(tks))
	}
	return tks[0]
}

// outlastClaimWhileCancelling makes every cancel of a Run wait, inside
// the admission's transaction, until the claim on its trigger's schedule
// row has expired in database time: verification under the row lock has
// passed, the cancel is made, and the fenced write then finds the claim
// expired — the one-statement window of a real commit, widened. The wait
// is the database's for its own clock, the very condition under test.
// Each wait counts in a sequence, which a rollback does not undo.
func (s *store) outlastClaimWhileCancelling(t *testing.T) {
	t.Helper()
	s.exec(t, `CREATE SEQUENCE qinglong.test_outlasted_claims`)
	s.exec(t, `CREATE FUNCTION qinglong.test_outlast_claim() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
		DECLARE expires bigint;
		BEGIN
			SELECT claim_expires_at_ms INTO expires FROM qinglong.trigger_schedules WHERE trigger_id = NEW.trigger_id;
			IF expires IS NOT NULL THEN
				PERFORM nextval('qinglong.test_outlasted_claims');
				PERFORM pg_sleep(greatest(expires - `+ClockMsSQL+` + 1, 0) / 1000.0);
			END IF;
			RETURN NEW;
		END $$`)
	s.exec(t, `CREATE TRIGGER test_outlast_claim BEFORE UPDATE ON qinglong.runs
		FOR EACH ROW WHEN (NEW.state = 'cancelled') EXECUTE FUNCTION qinglong.test_outlast_claim()`)
}

// requireCancelledBeforeTheFence: the commit did cancel before its fence
// failed (the fixture waited once), and none of it stands: the previous
// Run is still queued, without a run.cancelled event, and the occurrence
// has no Run. It then removes the fixture.
func (s *store) requireCancelledBeforeTheFence(t *testing.T, c cancelledTrigger) {
	t.Helper()
	if n := s.count(t, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM qinglong.test_outlasted_claims`); n != 1 {
		t.Fatalf("the commit cancelled %d times before its fence; want once (the window was not reached)", n)
	}
	if n := s.count(t, `SELECT count(*) FROM qinglong.runs WHERE id = $1 AND state = 'queued' AND cancel_requested_at_ms IS NULL`, c.previous); n != 1 {
		t.Fatalf("the previous Run is no longer queued without a cancel: the cancel committed without its admission")
	}
	if n := s.cancelledEvents(t, c.previous); n != 0 {
		t.Fatalf("the previous Run has %d run.cancelled events; want none", n)
	}
	if n := s.count(t, `SELECT count(*) FROM qinglong.runs WHERE trigger_id = $1`, c.triggerID); n != 1 {
		t.Fatalf("the trigger has %d Runs; want only the previous one", n)
	}
	s.exec(t, `DROP TRIGGER test_outlast_claim ON qinglong.runs`)
}

// requireAdmittedOnceWithTheCancel: the next claim of the trigger, committed
// through commit, admits the occurrence and cancels the previous Run,
// counted once, with one run.cancelled event.
func (s *store) requireAdmittedOnceWithTheCancel(t *testing.T, c cancelledTrigger, commit func(schedule.CommitParams) schedule.CommitResult) {
	t.Helper()
	p := params(t, s.takeOne(t, s.runtime))
	var want run.FinishCounts
	want.Add(run.Cancelled)
	if res := commit(p); res.Outcome != schedule.Admitted || res.RunID != p.RunID || res.Finished != want {
		t.Fatalf("the next claim's commit: %+v; want admitted as %s with the previous Run finished cancelled", res, p.RunID)
	}
	if n := s.count(t, `SELECT count(*) FROM qinglong.runs WHERE id = $1 AND state = 'cancelled'`, c.previous); n != 1 {
		t.Fatalf("the previous Run is not cancelled after the admission")
	}
	if n := s.cancelledEvents(t, c.previous); n != 1 {
		t.Fatalf("the previous Run has %d run.cancelled events; want one", n)
	}
	if n := s.count(t, `SELECT count(*) FROM qinglong.runs WHERE trigger_id = $1 AND id <> $2 AND waits_for_previous`, c.triggerID, c.previous); n != 1 {
		t.Fatalf("the trigger has %d admitted Runs waiting for the previous one; want one", n)
	}
}

// cancelledEvents counts the run.cancelled events of a Run.
func (s *store) cancelledEvents(t *testing.T, runID string) int {
	t.Helper()
	return s.count(t, `SELECT count(*) FROM qinglong.run_events WHERE run_id = $1 AND name = $2`, runID, run.EventCancelled)
}
