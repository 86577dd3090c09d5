package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A claim given back is at once claimable by another replica, long before
// its lease would have ended, and the released ticket itself can no longer
// commit: its own fence refuses it.
func TestAReleasedClaimIsAtOnceClaimableByAnotherReplica(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	b := s.openRuntime(t, "replica-b", testLease)
	for _, name := range []string{"alpha", "beta", "gamma"} {
		s.publish(t, name)
	}
	held := s.takeAll(t, s.runtime)
	if len(held) != 3 {
		t.Fatalf("replica a took %d rows, want 3", len(held))
	}
	if got := s.takeAll(t, b); len(got) != 0 {
		t.Fatalf("replica b took %d rows under live claims", len(got))
	}
	released, err := s.runtime.ScheduleRelease(t.Context(), held)
	if err != nil || released != 3 {
		t.Fatalf("release: %d rows, %v; want 3", released, err)
	}
	for _, tk := range held {
		row, err := s.row(t.Context(), tk.TriggerID)
		if err != nil {
			t.Fatal(err)
		}
		if row.ClaimOwner != nil || row.StateVersion != tk.StateVersion+1 {
			t.Fatalf("released row %+v; want no owner and state version %d", row, tk.StateVersion+1)
		}
	}
	taken := s.takeAll(t, b)
	if len(taken) != 3 {
		t.Fatalf("replica b took %d released rows, want 3", len(taken))
	}
	for _, tk := range taken {
		if tk.Lease.Owner != "replica-b" || tk.Lease.AcquiredAtMs >= held[0].Lease.ExpiresAtMs {
			t.Fatalf("replica b's lease %+v; want its own, taken before a's lease (ending %d) ran out", tk.Lease, held[0].Lease.ExpiresAtMs)
		}
	}
	if res, _ := s.runtime.ScheduleCommit(t.Context(), params(t, held[0])); res.Outcome != schedule.Raced {
		t.Fatalf("commit of a released ticket: %s (%s), want raced", res.Outcome, res.Reason)
	}
	results, err := b.ScheduleCommitPage(t.Context(), []schedule.CommitParams{params(t, taken[0]), params(t, taken[1]), params(t, taken[2])})
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		if res.Outcome != schedule.Initialized {
			t.Fatalf("replica b's commit %d: %s (%s) %v", i, res.Outcome, res.Reason, res.Err)
		}
	}
}

// A release changes no row whose claim is no longer the ticket's: one taken
// over after the lease ran out keeps the new claim (which still commits),
// even when the new claimer goes by the same owner name — a replica
// restarted under its old name: the owner is no proof, the token and
// versions are; one the ticket's own commit settled keeps what the commit
// wrote.
func TestAReleaseChangesNoClaimItNoLongerHolds(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := s.openRuntime(t, "replica-a", time.Second)
	b := s.openRuntime(t, "replica-a", testLease)
	over := s.publish(t, "taken-over")
	stale := s.takeAll(t, a)
	if len(stale) != 1 {
		t.Fatalf("replica a took %d rows, want 1", len(stale))
	}
	s.sleepUntilDBTime(t, stale[0].Lease.ExpiresAtMs)
	current := s.takeAll(t, b)
	if len(current) != 1 || current[0].TriggerID != over.trigger.TriggerID {
		t.Fatalf("the restarted replica took %d rows after expiry, want the expired claim", len(current))
	}
	before, err := s.row(t.Context(), over.trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	if released, err := a.ScheduleRelease(t.Context(), stale); err != nil || released != 0 {
		t.Fatalf("release of a claim taken over: %d rows, %v; want 0", released, err)
	}
	s.requireNothingWritten(t, over.trigger.TriggerID, before)
	if res, err := b.ScheduleCommit(t.Context(), params(t, current[0])); res.Outcome != schedule.Initialized {
		t.Fatalf("the new owner's commit after a stale release: %s (%s) %v", res.Outcome, res.Reason, err)
	}

	settled := s.publish(t, "settled")
	own := s.takeAll(t, b)
	if len(own) != 1 || own[0].TriggerID != settled.trigger.TriggerID {
		t.Fatalf("the restarted replica took %d rows, want the new trigger", len(own))
	}
	if res, err := b.ScheduleCommit(t.Context(), params(t, own[0])); res.Outcome != schedule.Initialized {
		t.Fatalf("commit: %s (%s) %v", res.Outcome, res.Reason, err)
	}
	before, err = s.row(t.Context(), settled.trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	if released, err := b.ScheduleRelease(t.Context(), own); err != nil || released != 0 {
		t.Fatalf("release of a committed ticket: %d rows, %v; want 0", released, err)
	}
	s.requireNothingWritten(t, settled.trigger.TriggerID, before)
}

// Releasing wakes every replica's scheduler, as a publish does: the rows
// are claimable now, not at the next cadence tick. A release that gave
// nothing back wakes nobody.
func TestAReleaseWakesTheSchedulersOnlyWhenItReleasedRows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.publish(t, "alpha")
	held := s.takeAll(t, s.runtime)
	l := listenNotices(t, s)
	if released, err := s.runtime.ScheduleRelease(t.Context(), held); err != nil || released != 1 {
		t.Fatalf("release: %d rows, %v; want 1", released, err)
	}
	l.expectSchedulesNotices(t, s, "a release of one row", 1)
	if released, err := s.runtime.ScheduleRelease(t.Context(), held); err != nil || released != 0 {
		t.Fatalf("second release: %d rows, %v; want 0", released, err)
	}
	l.expectSchedulesNotices(t, s, "a release of nothing", 0)
}
