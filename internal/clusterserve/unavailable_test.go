package clusterserve

import (
	"context"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/clustertest"
	"github.com/qinglong/qinglong/internal/coordinator"
)

func TestTerminatedBackendsMakeAReplicaUnavailableForGoodWhileTheOtherKeepsAdmitting(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("terminate", 300, "* * * * * *"))
	a := startReplica(t, bin, env, "replica-a", "--cadence", "250ms")
	b := startReplica(t, bin, env, "replica-b", "--cadence", "250ms")
	a.await(t, CodeReady, 30*time.Second)
	b.await(t, CodeReady, 30*time.Second)
	eventually(t, 30*time.Second, "both replicas admitting", func() bool {
		return admittedTotal(a.logs) > 0 && admittedTotal(b.logs) > 0
	})

	before := backends(t, env, "replica-a")
	// One sweep: every connection it ends must be noticed, including one
	// whose backend was mid-COMMIT and dies right after answering it.
	var terminated int64
	// Materialised first: the planner must not run pg_terminate_backend on
	// rows the application_name filter has not yet excluded.
	err := env.Super.QueryRow(context.Background(), `WITH victims AS MATERIALIZED (
			SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'qinglong:replica-a')
		SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM victims`).Scan(&terminated)
	if err != nil || terminated == 0 {
		t.Fatalf("terminated %d of replica-a's backends [%s]: %v", terminated, fmtPids(before), err)
	}

	eventually(t, 10*time.Second, "replica-a to report the lost database", func() bool {
		code, reason := a.readyz(t)
		return code == http.StatusServiceUnavailable && reason == ReasonDatabaseUnavailable
	})
	if len(a.logs.withCode(coordinator.CodeUnavailable))+len(a.logs.withCode(CodeUnavailable)) != 1 {
		t.Fatalf("the loss must be reported exactly once:\n%s", a.logs)
	}
	// replica-a's pool reconnects (new backends) and its scheduler keeps
	// running, yet readiness never comes back by itself.
	eventually(t, 10*time.Second, "replica-a to reconnect", func() bool {
		for _, pid := range backends(t, env, "replica-a") {
			if !slices.Contains(before, pid) {
				return true
			}
		}
		return false
	})
	runsAtLoss := env.Count(t).Runs
	stay := time.Now().Add(2 * time.Second)
	for time.Now().Before(stay) {
		if code, reason := a.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonDatabaseUnavailable {
			t.Fatalf("replica-a flapped back to %d %q", code, reason)
		}
		if code, _ := b.readyz(t); code != http.StatusOK {
			t.Fatalf("replica-b not ready: %d", code)
		}
	}
	resp, err := http.Get("http://" + a.addr + "/api/v1/runs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("replica-a's API answered %d while unavailable", resp.StatusCode)
	}
	// Every second 300 more occurrences fall due; replica-b keeps admitting.
	eventually(t, 20*time.Second, "replica-b to keep admitting", func() bool { return env.Count(t).Runs >= runsAtLoss+600 })

	a.signal(t, syscall.SIGTERM, 15*time.Second)
	b.signal(t, syscall.SIGTERM, 15*time.Second)
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences %+v", o)
	}
}

func TestTerminatedBackendsOfAnIdleReplicaAtTheDefaultCadenceMakeItUnavailable(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	// No trigger at all: the replica only polls, once a second.
	a := startReplica(t, bin, env, "replica-idle")
	a.await(t, CodeReady, 30*time.Second)
	eventually(t, 10*time.Second, "replica-idle to hold a backend", func() bool {
		return len(backends(t, env, "replica-idle")) > 0
	})
	var terminated int64
	err := env.Super.QueryRow(context.Background(), `WITH victims AS MATERIALIZED (
			SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'qinglong:replica-idle')
		SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM victims`).Scan(&terminated)
	if err != nil || terminated == 0 {
		t.Fatalf("terminated %d backends: %v", terminated, err)
	}
	eventually(t, 10*time.Second, "the idle replica to report the lost database", func() bool {
		code, reason := a.readyz(t)
		return code == http.StatusServiceUnavailable && reason == ReasonDatabaseUnavailable
	})
	a.signal(t, syscall.SIGTERM, 15*time.Second)
}
