package replica

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica given the maintenance role's URL deletes old finished Runs
// while its scheduler goes on admitting, and keeps every unfinished Run,
// however old.
func TestAReplicaRunsRetentionWhileItsSchedulerAdmits(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("keep", 3, "* * * * * *"))
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-ret",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second,
		MaintenanceURL: env.URL(pgstore.RoleMaintenance), Retention: retention.Settings{Runs: "30d", Logs: "off", LogBytes: "off"}}
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	s.RetentionCadence = 250 * time.Millisecond
	pr, pw := io.Pipe()
	logs := &logLines{added: make(chan struct{}, 1)}
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		logs.consume(pr)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- serveReplica(ctx, s, slog.New(slog.NewJSONHandler(pw, nil))) }()
	const admittedRuns = `SELECT count(*) FROM qinglong.runs WHERE idempotency_key NOT LIKE 'seed:%'`
	eventually(t, 30*time.Second, "a first admission", func() bool { return env.Int(t, admittedRuns) > 0 })
	// Unfinished (queued: no worker runs them) and as old as the seeded ones.
	env.Exec(t, `UPDATE qinglong.runs SET created_at_ms = created_at_ms - $1, queued_at_ms = queued_at_ms - $1, updated_at_ms = updated_at_ms - $1`,
		(40 * retention.Day).Milliseconds())
	before := env.Int(t, admittedRuns)
	const seeded = 400
	env.SeedFinished(t, seeded, 40*retention.Day, 64)
	env.SeedFinished(t, 5, retention.Day, 64)
	eventually(t, 30*time.Second, "the old finished runs to be deleted", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE idempotency_key LIKE 'seed:%'`) == 5
	})
	eventually(t, 10*time.Second, "admissions after the deletion", func() bool { return env.Int(t, admittedRuns) >= before+3 })
	if n := env.Int(t, admittedRuns+` AND created_at_ms < `+pgstore.ClockMsSQL+` - $1`, (30 * retention.Day).Milliseconds()); n != before {
		t.Fatalf("%d unfinished runs admitted 40 days ago are left, want all %d", n, before)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.run_log_chunks`); n != 5 {
		t.Fatalf("%d log chunks left, want the 5 of the young finished runs", n)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	pw.Close()
	<-consumed
	// Read once the replica has stopped and every line is consumed: a
	// pass logs its record after its last batch commits, so the record
	// may still be on its way when the database already shows the rows
	// gone.
	var deleted float64
	for _, rec := range logs.withCode(retention.CodePass) {
		deleted += rec["runs"].(float64)
	}
	if deleted != seeded {
		t.Fatalf("retention.pass records add up to %v runs deleted, want %d", deleted, seeded)
	}
}
