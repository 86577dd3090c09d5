package replica

import (
	"context"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// sqlNowMs reads the database clock, which stamps every Run's created_at_ms.
const sqlNowMs = `SELECT ` + pgstore.ClockMsSQL

// terminateBackends ends every backend of a replica and returns how many.
func terminateBackends(t *testing.T, env *clustertest.Env, owner string) int64 {
	t.Helper()
	var terminated int64
	// Materialised first: the planner must not run pg_terminate_backend on
	// rows the application_name filter has not yet excluded.
	err := env.Super.QueryRow(context.Background(), `WITH victims AS MATERIALIZED (
			SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1)
		SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM victims`, "qinglong:"+owner).Scan(&terminated)
	if err != nil || terminated == 0 {
		t.Fatalf("terminated %d of %s's backends: %v", terminated, owner, err)
	}
	return terminated
}

// newBackend reports whether a replica holds a backend not in before.
func newBackend(t *testing.T, env *clustertest.Env, owner string, before []int32) bool {
	for _, pid := range backends(t, env, owner) {
		if !slices.Contains(before, pid) {
			return true
		}
	}
	return false
}

func TestAReplicaThatLostItsDatabaseAdmitsNothingUntilAFreshActivationCompletes(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("terminate", 50, "* * * * * *"))
	// A short claim lease: a page whose claim committed just before the
	// backends were terminated, and whose commits then failed, is left to
	// expire (a lost database claims and releases nothing more), so its
	// rows are admitted again only after the lease.
	const claimLease = 5 * time.Second
	a := startReplica(t, bin, env, "replica-a", "--cadence", "250ms", "--lease", claimLease.String())
	a.await(t, CodeReady, 30*time.Second)
	eventually(t, 30*time.Second, "replica-a admitting", func() bool { return admittedTotal(a.logs) > 0 })

	// Hold the migration history, which readiness reads and admissions
	// never touch: the fresh activation stops in readiness, while a
	// scheduler left running would go on admitting 50 Runs a second.
	hold, err := env.Super.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.Background()) // released below; no-op then
	if _, err := hold.Exec(context.Background(), `LOCK TABLE qinglong.schema_migrations IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	before := backends(t, env, "replica-a")
	// One sweep: every connection it ends must be noticed, including one
	// whose backend was mid-COMMIT and dies right after answering it.
	terminateBackends(t, env, "replica-a")
	eventually(t, 10*time.Second, "replica-a to report the lost database", func() bool {
		code, reason := a.readyz(t)
		return code == http.StatusServiceUnavailable && reason == ReasonDatabaseUnavailable
	})
	lostAt := env.Int(t, sqlNowMs)
	eventually(t, 10*time.Second, "the fresh activation to wait on the held history", func() bool {
		return env.Int(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND application_name = 'qinglong:replica-a' AND wait_event_type = 'Lock'`) > 0
	})
	stay := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(stay) {
		if code, reason := a.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonDatabaseUnavailable {
			t.Fatalf("replica-a reported %d %q before its fresh activation completed", code, reason)
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Get("http://" + a.addr + "/api/v1/runs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("replica-a's API answered %d while unavailable", resp.StatusCode)
	}
	heldUntil := env.Int(t, sqlNowMs)
	// A commit whose COMMIT was already on the wire when the loss was seen
	// may still land just after it; nothing may start later.
	const inFlightMs = 250
	if n := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE created_at_ms > $1`, lostAt+inFlightMs); n != 0 {
		t.Fatalf("%d Runs admitted between %d and %d while replica-a reported itself unavailable", n, lostAt+inFlightMs, heldUntil)
	}
	if err := hold.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}

	eventually(t, 15*time.Second, "replica-a ready again", func() bool {
		code, _ := a.readyz(t)
		return code == http.StatusOK
	})
	if !newBackend(t, env, "replica-a", before) {
		t.Fatalf("replica-a is ready on its old backends [%s]", fmtPids(before))
	}
	eventually(t, claimLease+10*time.Second, "replica-a admitting again", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE created_at_ms > $1`, heldUntil) > 0
	})
	if n := len(a.logs.withCode(scheduler.CodeUnavailable)) + len(a.logs.withCode(CodeUnavailable)); n != 1 {
		t.Fatalf("the loss was reported %d times, want exactly once:\n%s", n, a.logs)
	}
	codes := a.logs.codes()
	deactivated := slices.Index(codes, CodeDeactivated)
	if deactivated < 0 || len(a.logs.withCode(scheduler.CodeStarted)) != 2 || len(a.logs.withCode(CodeReady)) != 2 ||
		slices.Index(codes[deactivated:], scheduler.CodeStarted) < slices.Index(codes[deactivated:], CodeDatabaseReady) {
		t.Fatalf("want scheduler stopped, then readiness, recovery and a second scheduler before admission reopened:\n%s", a.logs)
	}

	a.signal(t, syscall.SIGTERM, 15*time.Second)
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM", code)
	}
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences %+v", o)
	}
}

func TestAnIdleReplicaAtTheDefaultCadenceReactivatesAfterItsBackendsAreTerminated(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	// No trigger at all: the replica only polls, once a second.
	a := startReplica(t, bin, env, "replica-idle")
	a.await(t, CodeReady, 30*time.Second)
	eventually(t, 10*time.Second, "replica-idle to hold a backend", func() bool {
		return len(backends(t, env, "replica-idle")) > 0
	})
	before := backends(t, env, "replica-idle")
	terminateBackends(t, env, "replica-idle")
	a.await(t, CodeDeactivated, 10*time.Second)
	eventually(t, 10*time.Second, "the idle replica ready again on a new backend", func() bool {
		code, _ := a.readyz(t)
		return code == http.StatusOK && len(a.logs.withCode(CodeReady)) == 2 && newBackend(t, env, "replica-idle", before)
	})
	a.signal(t, syscall.SIGTERM, 15*time.Second)
}
