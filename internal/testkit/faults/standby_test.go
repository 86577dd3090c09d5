package faults

import (
	"context"
	"testing"
)

func TestSyncStandbyHasAppliedEveryReturnedCommitAndPromotesOntoANewTimeline(t *testing.T) {
	t.Parallel()
	pair := StartSyncPair(t, nil)
	primary := connect(t, pair.Primary.SuperuserURL("postgres"))
	standby := connect(t, pair.Standby.SuperuserURL("postgres"))
	if n := count(t, standby, "SELECT pg_is_in_recovery()::int"); n != 1 {
		t.Fatal("the standby is not in recovery")
	}
	mustExec(t, primary, "CREATE TABLE t (v int)")
	for i := range 20 {
		mustExec(t, primary, "INSERT INTO t VALUES ($1)", i)
		// No waiting: remote_apply means the commit returned only after
		// the standby replayed it.
		if n := count(t, standby, "SELECT count(*) FROM t"); n != i+1 {
			t.Fatalf("standby sees %d rows right after commit %d returned, want %d", n, i+1, i+1)
		}
	}
	standby.Close(context.Background())

	ctx, cancel := context.WithTimeout(t.Context(), replicationTimeout)
	defer cancel()
	pr, err := pair.FenceAndPromote(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("promotion: %+v", pr)
	if pr.TimelineAfter != pr.TimelineBefore+1 {
		t.Fatalf("timeline %d → %d, want a switch to the next timeline", pr.TimelineBefore, pr.TimelineAfter)
	}
	promoted := connect(t, pair.Standby.SuperuserURL("postgres"))
	if n := count(t, promoted, "SELECT pg_is_in_recovery()::int"); n != 0 {
		t.Fatal("the promoted standby is still in recovery")
	}
	mustExec(t, promoted, "INSERT INTO t VALUES (20)")
	if n := count(t, promoted, "SELECT count(*) FROM t"); n != 21 {
		t.Fatalf("the new primary has %d rows, want 21", n)
	}
}
