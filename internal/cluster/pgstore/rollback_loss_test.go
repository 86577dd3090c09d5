package pgstore

import (
	"errors"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/faults"
)

// TestConnectionLostAtRollbackIsReportedWithTheRace: a commit that
// verification turns away ends with ROLLBACK, and a connection that breaks
// right there is seen by that ROLLBACK alone — the pool would discard it
// silently on release. The race stands (nothing was written) and the loss
// is reported with it, so the replica turns unavailable (docs/architecture.md, "Rounds and the lifecycle").
func TestConnectionLostAtRollbackIsReportedWithTheRace(t *testing.T) {
	t.Parallel()
	s, proxy, rt, d, p := raceThroughProxy(t)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	cut := proxy.ArmCut("ROLLBACK")
	res, err := rt.ScheduleCommit(t.Context(), p)
	select {
	case <-cut:
	default:
		t.Fatalf("the proxy never cut a ROLLBACK (commit: %+v, %v): the fault did not happen", res, err)
	}
	if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonProjectInactive {
		t.Fatalf("commit after archiving, connection cut at ROLLBACK: %s (%s), want raced (project_inactive)", res.Outcome, res.Reason)
	}
	if !errors.Is(err, schedule.ErrUnavailable) {
		t.Fatalf("connection cut at ROLLBACK went unreported: %v", err)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

// TestARollbackThatNeverAnswersIsBoundedAndReportedLost: the link dies with
// the ROLLBACK unacknowledged (the proxy holds it and never forwards it), a
// case TCP keepalives do not cover. The commit returns within the ROLLBACK's
// own limit, its race stands, and the loss is reported so the replica takes
// itself out of service instead of waiting for the kernel.
func TestARollbackThatNeverAnswersIsBoundedAndReportedLost(t *testing.T) {
	t.Parallel()
	s, proxy, rt, d, p := raceThroughProxy(t)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	hold := proxy.ArmHold("ROLLBACK")
	t.Cleanup(hold.Release)
	start := time.Now()
	res, err := rt.ScheduleCommit(t.Context(), p)
	took := time.Since(start)
	select {
	case <-hold.Held():
	default:
		t.Fatalf("the proxy never held a ROLLBACK (commit: %+v, %v): the fault did not happen", res, err)
	}
	// Two limits of the same length end a held ROLLBACK: its own, and
	// the runtime role's idle-in-transaction bound, which has the server
	// end the session a few milliseconds sooner or later. Either way the
	// commit waited for the held ROLLBACK; one not held answers at once.
	if took < rollbackTimeout-time.Second {
		t.Fatalf("the commit returned after %s, long before the ROLLBACK limit of %s: the ROLLBACK was not the one held", took, rollbackTimeout)
	}
	if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonProjectInactive {
		t.Fatalf("commit after archiving, ROLLBACK held: %s (%s), want raced (project_inactive)", res.Outcome, res.Reason)
	}
	if !errors.Is(err, schedule.ErrUnavailable) {
		t.Fatalf("a ROLLBACK that never answered went unreported: %v", err)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

// raceThroughProxy is a runtime store connected through a fault proxy,
// holding a due ticket whose project was archived after the claim: its
// commit verifies to raced (project_inactive) and ends with ROLLBACK.
func raceThroughProxy(t *testing.T) (*store, *faults.Proxy, *Runtime, published, schedule.CommitParams) {
	t.Helper()
	s := newStore(t)
	proxy := sharedProxy(t)
	proxied, err := proxy.URL(s.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	rt := s.openRuntimeAt(t, proxied, "replica-a", testLease)
	d, p := s.dueTicket(t, rt)
	d.project.Status = "archived"
	if _, err := s.admin.ProjectSave(t.Context(), d.project); err != nil {
		t.Fatal(err)
	}
	return s, proxy, rt, d, p
}
