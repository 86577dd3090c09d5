package replica

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A replica given the maintenance role's URL deletes old finished Runs
// while its scheduler goes on admitting, and keeps every unfinished Run,
// however old.
func TestAReplicaRunsRetentionWhileItsSchedulerAdmits(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("keep", 3, "* * * * * *"))
	logs, stop := retainingReplica(t, env, "replica-ret")
	const admittedRuns = `SELECT count(*) FROM qinglong.runs WHERE idempotency_key NOT LIKE 'seed:%'`
	eventually(t, 30*time.Second, "a first admission", func() bool { return env.Int(t, admittedRuns) > 0 })
	// Unfinished (queued: no worker runs them) and as old as the seeded ones.
	env.Exec(t, `UPDATE qinglong.runs SET created_at_ms = created_at_ms - $1, queued_at_ms = queued_at_ms - $1, updated_at_ms = updated_at_ms - $1`,
		(40 * retention.Day).Milliseconds())
	// Counted as aged, not as admitted: the scheduler goes on admitting
	// (young) Runs between the update and this read.
	old := admittedRuns + ` AND created_at_ms < ` + pgstore.ClockMsSQL + ` - $1`
	before := env.Int(t, old, (30 * retention.Day).Milliseconds())
	admitted := env.Int(t, admittedRuns)
	const seeded = 400
	env.SeedFinished(t, seeded, 40*retention.Day, 64)
	env.SeedFinished(t, 5, retention.Day, 64)
	eventually(t, 30*time.Second, "the old finished runs to be deleted", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE idempotency_key LIKE 'seed:%'`) == 5
	})
	eventually(t, 10*time.Second, "admissions after the deletion", func() bool { return env.Int(t, admittedRuns) >= admitted+3 })
	if n := env.Int(t, old, (30 * retention.Day).Milliseconds()); n != before {
		t.Fatalf("%d unfinished runs admitted 40 days ago are left, want all %d", n, before)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.run_log_chunks`); n != 5 {
		t.Fatalf("%d log chunks left, want the 5 of the young finished runs", n)
	}
	stop()
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

// retainingReplica serves a replica whose retention pass deletes finished
// Runs older than 30 days every 250 ms, its JSON log read into logs. stop
// stops it (at the latest when t ends), fails t if serving failed and
// returns once every line it logged is in logs.
func retainingReplica(t *testing.T, env *clustertest.Env, id string) (logs *logLines, stop func()) {
	t.Helper()
	return retainingReplicaWith(t, retentionReplicaFlags(env, id))
}

// retainingReplicaWith serves a replica of flags f as retainingReplica
// does.
func retainingReplicaWith(t *testing.T, f cli.ServeFlags) (logs *logLines, stop func()) {
	t.Helper()
	s, err := settingsFrom(&f)
	if err != nil {
		t.Fatal(err)
	}
	s.RetentionCadence = 250 * time.Millisecond
	logs, log, logged := capturedLogs()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveReplica(ctx, s, log) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-served; err != nil {
				t.Errorf("serve: %v", err)
			}
			logged()
		})
	}
	t.Cleanup(stop)
	return logs, stop
}

// The maintenance role's refused login (a replica's $PGPASSWORD is its
// runtime role's) names the setting its URL comes from and how to give
// that role its own password, and never shows the password tried.
func TestTheMaintenanceRolesRefusedLoginNamesItsSettingAndHowToGiveItsPassword(t *testing.T) {
	t.Parallel()
	srv := pgtest.NewPasswordServer(t)
	db := srv.NewDatabase(t)
	const role, wrong = "ql_maintenance", "Runtime-pw-0815"
	super, err := pgx.Connect(t.Context(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(context.Background())
	if _, err := super.Exec(t.Context(), "CREATE ROLE "+role+" LOGIN PASSWORD 'Maintenance-pw-4242'"); err != nil {
		t.Fatal(err)
	}
	mt := &maintenance{url: fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s", role, wrong, srv.Port(), db.Name), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	defer mt.Close()
	_, err = mt.RetentionBatch(t.Context(), retention.Batch{Kind: retention.KindRuns, OlderThan: time.Hour, Limit: 1})
	if !pgstore.LoginRefused(err) || pgstore.Transient(err) {
		t.Fatalf("%v; want the refused login, not a failure worth retrying", err)
	}
	msg := err.Error()
	for _, want := range []string{"maintenance role", "$" + cli.EnvMaintenanceURL, "--database-maintenance-url", "$PGPASSWORD", "$PGPASSFILE", "`ql db roles`", `"` + role + `"`, "28P01"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, wrong) || strings.Contains(msg, "unavailable") {
		t.Errorf("%q; want neither the password nor an unavailable server", msg)
	}
}
