package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// TestATriggerAnotherProcessAppliesIsAdmittedAtItsDueInstantNotAtTheNextTick:
// a replica whose cadence is an hour, idle since its first round, admits
// the first occurrences of a trigger another process applies within
// seconds: the publish's schedules-changed notice wakes its scheduler,
// whose claim initialises the new row and learns its due instant.
func TestATriggerAnotherProcessAppliesIsAdmittedAtItsDueInstantNotAtTheNextTick(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	serveInProcess(t, cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "idle",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: time.Hour, StopTimeout: 2 * time.Second})
	// Subscribed to every channel: the listener's last statement is its
	// LISTEN on the schedules channel, and it is waiting.
	eventually(t, 30*time.Second, "the replica's notice listener", func() bool {
		return env.Int(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND query = 'LISTEN qinglong_schedules_changed' AND state = 'idle'`) == 1
	})
	applied := env.Int(t, `SELECT `+pgstore.ClockMsSQL)
	env.Apply(t, clustertest.Triggers("late", 1, "* * * * * *"))
	eventually(t, 15*time.Second, "the applied trigger's first Run", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs`) > 0
	})
	var scheduled, lag int64
	if err := env.Super.QueryRow(t.Context(), `SELECT scheduled_for_ms, created_at_ms - scheduled_for_ms FROM qinglong.runs
		ORDER BY scheduled_for_ms LIMIT 1`).Scan(&scheduled, &lag); err != nil {
		t.Fatal(err)
	}
	if scheduled-applied > 3000 {
		t.Fatalf("the first Run is scheduled %d ms after the apply; want one of the first occurrences after it", scheduled-applied)
	}
	t.Logf("the first Run is scheduled %d ms after the apply and admitted %d ms after its due instant", scheduled-applied, lag)
}
