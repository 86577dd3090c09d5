package pgstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/faults"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// TestConnectionLostAtRollbackIsReportedWithTheRace: a commit that
// verification turns away ends with ROLLBACK, and a connection that breaks
// right there is seen by that ROLLBACK alone — the pool would discard it
// silently on release. The race stands (nothing was written) and the loss
// is reported with it, so the replica turns unavailable (docs/architecture.md, "Rounds and the lifecycle").
func TestConnectionLostAtRollbackIsReportedWithTheRace(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	proxy, err := faults.StartProxy(fmt.Sprintf("127.0.0.1:%d", pgtest.Server(t).Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := proxy.Close(); err != nil {
			t.Errorf("closing the proxy: %v", err)
		}
	})
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
