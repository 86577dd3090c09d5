package replica

import (
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestAReplicaComesBackAfterAPostgreSQLRestartWithoutAProcessRestart(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	srv, env := ownServer(t)
	env.Apply(t, clustertest.Triggers("restart", 20, "* * * * * *"))
	// The default cadence, 1 s: the one the resumption is measured against.
	r := startReplica(t, bin, env, "replica-r")
	r.await(t, CodeReady, 30*time.Second)
	eventually(t, 30*time.Second, "replica-r admitting", func() bool { return admittedTotal(r.logs) > 0 })
	before := backends(t, env, "replica-r")
	postmaster := srv.PID()

	if err := srv.Restart(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	backAt := time.Now().UnixMilli()
	if srv.PID() == postmaster {
		t.Fatalf("the postmaster (pid %d) did not change: no restart happened", postmaster)
	}
	// The superuser pool's connections died with the server too.
	env.Super.Reset()

	eventually(t, 30*time.Second, "replica-r admitting after the restart", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE created_at_ms > $1`, backAt) > 0
	})
	first := env.Int(t, `SELECT min(created_at_ms) FROM qinglong.runs WHERE created_at_ms > $1`, backAt)
	t.Logf("admissions resumed %d ms after the restarted server accepted connections (cadence 1s)", first-backAt)
	eventually(t, 10*time.Second, "replica-r ready on new backends", func() bool {
		code, _ := r.readyz(t)
		return code == http.StatusOK && newBackend(t, env, "replica-r", before)
	})
	select {
	case <-r.done:
		t.Fatalf("replica-r exited (%v) instead of re-activating", r.cmd.ProcessState)
	default:
	}
	if len(r.logs.withCode(CodeDeactivated)) == 0 || len(r.logs.withCode(CodeReady)) < 2 {
		t.Fatalf("want the lost activation stopped and a fresh one ready:\n%s", r.logs)
	}

	r.signal(t, syscall.SIGTERM, 15*time.Second)
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM", code)
	}
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences %+v", o)
	}
}

// ownServer starts a PostgreSQL server for a test that restarts it (the
// shared one serves every other test) and the cluster environment on it.
func ownServer(t *testing.T) (*pgtest.Srv, *clustertest.Env) {
	t.Helper()
	srv, err := pgtest.StartServer(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the PostgreSQL server", 30*time.Second, srv.Stop)
	return srv, clustertest.NewOn(t, srv)
}
