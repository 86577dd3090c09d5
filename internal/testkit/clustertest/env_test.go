package clustertest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestMakeDueHandsEveryRowBackToTheClaimers: a replica that claimed the
// rows (to initialise them) just before a test makes them due fails its
// fence on the new state version; the rows must be claimable at once, not
// hidden behind that replica's claim until its lease expires.
func TestMakeDueHandsEveryRowBackToTheClaimers(t *testing.T) {
	env := New(t)
	env.Apply(t, Triggers("due", 3, QuietCron()))
	first, err := pgstore.OpenRuntime(t.Context(), env.URL(pgstore.RoleRuntime), pgstore.RuntimeConfig{Owner: "first", RolePrefix: env.Prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	taken, err := first.ScheduleTake(t.Context(), schedule.TakeParams{Limit: 10})
	if err != nil || len(taken) != 3 {
		t.Fatalf("first claim: %d tickets, %v; want 3", len(taken), err)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner = 'first'`); n != 3 {
		t.Fatalf("%d rows claimed by the first replica, want 3", n)
	}

	env.MakeDue(t, 1000)

	second, err := pgstore.OpenRuntime(t.Context(), env.URL(pgstore.RoleRuntime), pgstore.RuntimeConfig{Owner: "second", RolePrefix: env.Prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	again, err := second.ScheduleTake(t.Context(), schedule.TakeParams{Limit: 10})
	if err != nil || len(again) != 3 {
		t.Fatalf("claim after MakeDue: %d tickets, %v; want all 3 rows", len(again), err)
	}
}
