package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// Two replicas with different --run-lease (3 s and 5 min) give every
// worker the same qinglong_workers state: a worker registered through the
// short-lease replica and one through the long-lease replica, both gone
// two minutes since the sweep expired their sessions, are lost and
// expired respectively on both replicas (the grace is the run lease the
// session was registered under plus a session lease: 3 s + 45 s passed,
// 5 min + 45 s not yet), where each replica's own lease would have made
// the short one count both lost and the long one both expired.
func TestAWorkersLostStateDoesNotDependOnTheAskingReplicasRunLease(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	short := metricsReplicaFlags(env, "replica-short-lease")
	short.RunLease = MinRunLease
	long := metricsReplicaFlags(env, "replica-long-lease")
	long.RunLease = 5 * time.Minute
	var sessions []string
	var scrapes []string
	for _, f := range []struct {
		flags  cli.ServeFlags
		worker string
	}{{short, "gone-short"}, {long, "gone-long"}} {
		p := serveInProcess(t, f.flags)
		p.awaitReady(t)
		addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
		scrapes = append(scrapes, "http://"+addr+"/metrics")
		workerAddr, _ := p.logs.withCode(CodeWorkerListening)[0]["addr"].(string)
		// A real registration through this replica's worker ingress, by a
		// worker that then goes silent for good.
		c, err := agent.NewClient("http://"+workerAddr, env.WorkerCredential(t, f.worker, nil, 1), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := c.Register(t.Context(), workerproto.RegisterRequest{Capacity: 1, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if reg.RunLeaseMs != f.flags.RunLease.Milliseconds() {
			t.Fatalf("the registration told worker %s a run lease of %d ms, want its replica's %s", f.worker, reg.RunLeaseMs, f.flags.RunLease)
		}
		sessions = append(sessions, reg.SessionID)
	}
	env.Exec(t, `UPDATE qinglong.worker_sessions SET lease_expires_at_ms = heartbeat_at_ms + 1 WHERE id = ANY($1)`, sessions)
	eventually(t, 30*time.Second, "the sweep to expire both sessions", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions WHERE state = 'expired' AND id = ANY($1)`, sessions) == 2
	})
	env.Exec(t, `UPDATE qinglong.worker_sessions SET created_at_ms = created_at_ms - 120000, heartbeat_at_ms = heartbeat_at_ms - 120000,
		lease_expires_at_ms = lease_expires_at_ms - 120000, updated_at_ms = updated_at_ms - 120000 WHERE id = ANY($1)`, sessions)

	for i, url := range scrapes {
		var expired, lost float64
		eventually(t, 30*time.Second, "a reading of both expired sessions", func() bool {
			m := metricstest.Scrape(t, url)
			expired, lost = m.Sum("qinglong_workers", "state", metrics.WorkerExpired), m.Sum("qinglong_workers", "state", metrics.WorkerLost)
			return expired+lost == 2
		})
		if expired != 1 || lost != 1 {
			t.Errorf("replica %d (run lease %s): qinglong_workers %g expired and %g lost, want 1 and 1 (the worker registered under 5 min is within its grace, the one under 3 s is not)",
				i+1, []time.Duration{short.RunLease, long.RunLease}[i], expired, lost)
		}
	}
}
