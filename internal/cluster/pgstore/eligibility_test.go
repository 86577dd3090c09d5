package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
)

// TestIneligibleRowsDoNotSlowTheClaim: 10,000 disabled triggers (NULL
// cursors, first in claim order) in front of 100 due rows. Publishing's
// eligibility refresh (the real statement) takes them out of the claim's
// index, so a claim of 16 reads about 16 rows, not 10,000.
//
// Not parallel: the 10,000 rows the refresh takes out of the index leave
// dead entries there that only VACUUM removes, and a transaction of a test
// running beside this one can hold back the horizon VACUUM may clean up
// to; the claim then walks those entries (650 buffers, seen once in a CI
// run on PostgreSQL 16) — the cost of a vacuum held back, not of the
// ineligible rows this test is about.
func TestIneligibleRowsDoNotSlowTheClaim(t *testing.T) {
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: 20_000, dueRows: 100})
	const disabled = 10_000
	s.exec(t, `UPDATE qinglong.trigger_revisions SET enabled = false
		WHERE trigger_id IN (SELECT trigger_id FROM qinglong.trigger_schedules ORDER BY next_fire_at_ms DESC LIMIT $1)`, disabled)
	s.exec(t, `UPDATE qinglong.trigger_schedules SET next_fire_at_ms = NULL
		WHERE trigger_id IN (SELECT trigger_id FROM qinglong.trigger_revisions WHERE NOT enabled)`)
	measure := func() claimCost {
		s.exec(t, "VACUUM ANALYZE qinglong.trigger_schedules")
		c := s.explainClaim(t, 16)
		if c.Claimed != 16 {
			t.Fatalf("claimed %d rows, want 16", c.Claimed)
		}
		return c
	}
	// Negative control: with every flag still true the claim walks the
	// disabled rows.
	if c := measure(); c.ScheduleReads < disabled {
		t.Fatalf("before the refresh the claim read %d schedule rows; the layout does not put %d disabled rows in its way", c.ScheduleReads, disabled)
	}
	s.exec(t, sqlEligibilityOfProject, "00000000-0000-7000-8000-000000000001")
	c := measure()
	if c.ScheduleReads > claimReadBudget(16) || c.Buffers > claimBufferBudget(16) {
		t.Fatalf("with %d disabled triggers a claim of 16 read %d schedule rows (budget %d) and %d buffers (budget %d); plan:\n%s",
			disabled, c.ScheduleReads, claimReadBudget(16), c.Buffers, claimBufferBudget(16), c.Plan)
	}
	t.Logf("%d disabled triggers: %d schedule rows read, %d buffers", disabled, c.ScheduleReads, c.Buffers)
}

// TestEligibilityFlagFollowsEveryPublish: each publish that changes whether
// a claim may take a row sets its schedulable flag to match, and every way
// back (re-enable, reactivate, re-pin) makes the row claimable again — a
// flag left false would silence the trigger for good.
func TestEligibilityFlagFollowsEveryPublish(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d := s.publish(t, "alpha")
	svc := s.fixture().Service
	ctx := t.Context()
	flag := func(step string, want bool) {
		t.Helper()
		var got bool
		if err := s.super.QueryRow(ctx, `SELECT schedulable FROM qinglong.trigger_schedules WHERE trigger_id = $1`, d.trigger.TriggerID).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("after %s: schedulable %v, want %v", step, got, want)
		}
		if claimed := len(s.takeAll(t, s.runtime)) == 1; claimed != want {
			t.Fatalf("after %s: claimed %v, want %v", step, claimed, want)
		}
		// Release the claim as the superuser, so the next step's take is
		// not held back by this one's lease.
		s.exec(t, `UPDATE qinglong.trigger_schedules SET claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL WHERE trigger_id = $1`, d.trigger.TriggerID)
	}
	flag("publishing an enabled trigger", true)

	publishTrigger := func(enabled bool, pinned task.Revision) {
		t.Helper()
		spec := d.trigger.Spec
		spec.Enabled = enabled
		rev, _, err := svc.PublishTrigger(ctx, d.project.ID, d.trigger.TriggerID, pinned, d.trigger.Revision, ids.New(), spec)
		if err != nil {
			t.Fatal(err)
		}
		d.trigger = rev
	}
	publishTrigger(false, d.task)
	flag("disabling the trigger", false)
	publishTrigger(true, d.task)
	flag("re-enabling it", true)

	d.project.Status = "archived"
	if _, err := s.admin.ProjectSave(ctx, d.project); err != nil {
		t.Fatal(err)
	}
	flag("archiving the project", false)
	d.project.Status = "active"
	if _, err := s.admin.ProjectSave(ctx, d.project); err != nil {
		t.Fatal(err)
	}
	flag("reactivating it", true)

	next := d.task.Spec
	next.Command.Args = []string{"false"}
	rev2, _, err := svc.PublishTask(ctx, d.project.ID, d.task.TaskID, d.task.Revision, ids.New(), next)
	if err != nil {
		t.Fatal(err)
	}
	flag("a new task revision the trigger does not pin", false)
	publishTrigger(true, rev2)
	flag("re-pinning the trigger to it", true)
}
