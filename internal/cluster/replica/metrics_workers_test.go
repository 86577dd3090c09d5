package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// TestTheWorkersGaugeCountsEachStateFromZero: a replica's first reading of
// qinglong_workers, before any worker connected, exports every state at 0;
// then, with one worker taking work, one drained, one lost (its session
// expired by the sweep), one lost two hours ago and one whose credential
// was revoked before its session expired, it counts one active, one
// draining and one expired, as the database holds them.
func TestTheWorkersGaugeCountsEachStateFromZero(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("gauge", 1, clustertest.QuietCron()))
	f := metricsReplicaFlags(env, "replica-workers-gauge")
	f.RunLease = MinRunLease
	p := serveInProcess(t, f)
	p.awaitReady(t)
	addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
	var m metricstest.Families
	eventually(t, 30*time.Second, "a reading of qinglong_workers", func() bool {
		m = metricstest.Scrape(t, "http://"+addr+"/metrics")
		_, ok := m["qinglong_workers"]
		return ok
	})
	for _, s := range metrics.WorkerStateNames {
		if got := m.Value(t, "qinglong_workers", "state", s); got != 0 {
			t.Errorf("first reading: qinglong_workers{state=%q} = %g, want 0 (no worker connected)", s, got)
		}
	}

	rt := env.Runtime(t, "test-workers", pgstore.DefaultLease)
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	steadyID, steady := env.ConnectWorker(t, rt, "steady", nil, 1)
	drainedCred := env.WorkerCredential(t, "drained", nil, 1)
	if err := admin.WorkerDrain(t.Context(), "drained"); err != nil {
		t.Fatal(err)
	}
	drainedID, err := rt.AuthenticateWorker(t.Context(), drainedCred)
	if err != nil {
		t.Fatal(err)
	}
	drained, err := rt.RegisterWorker(t.Context(), drainedID, workerproto.RegisterRequest{Capacity: 1, Version: "test"}, pgstore.WorkerSettings{})
	if err != nil {
		t.Fatal(err)
	}
	_, lost := env.ConnectWorker(t, rt, "lost", nil, 1)
	_, longGone := env.ConnectWorker(t, rt, "long-gone", nil, 1)
	_, revoked := env.ConnectWorker(t, rt, "revoked", nil, 1)
	if _, err := admin.WorkerRevoke(t.Context(), "revoked"); err != nil {
		t.Fatal(err)
	}
	if drained.State != "draining" {
		t.Fatalf("the drained worker's session is %s, want draining", drained.State)
	}
	// The live workers heartbeat while the test waits, as real ones do, so
	// a slow run never sees their sessions expire too.
	beat := func() {
		for id, session := range map[pgstore.WorkerIdentity]string{steadyID: steady.SessionID, drainedID: drained.SessionID} {
			if _, err := rt.HeartbeatWorker(t.Context(), id, workerproto.HeartbeatRequest{SessionID: session}); err != nil {
				t.Fatal(err)
			}
		}
	}
	gone := []string{lost.SessionID, longGone.SessionID, revoked.SessionID}
	env.Exec(t, `UPDATE qinglong.worker_sessions SET lease_expires_at_ms = heartbeat_at_ms + 1 WHERE id = ANY($1)`, gone)
	eventually(t, 30*time.Second, "the sweep to expire the lost sessions", func() bool {
		beat()
		return env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions WHERE state = 'expired' AND id = ANY($1)`, gone) == int64(len(gone))
	})
	// The long-gone worker was lost two hours ago: outside the window.
	env.Exec(t, `UPDATE qinglong.worker_sessions SET created_at_ms = created_at_ms - 7200000, heartbeat_at_ms = heartbeat_at_ms - 7200000,
		lease_expires_at_ms = lease_expires_at_ms - 7200000, updated_at_ms = updated_at_ms - 7200000 WHERE id = $1`, longGone.SessionID)

	want := map[string]float64{metrics.WorkerActive: 1, metrics.WorkerDraining: 1, metrics.WorkerExpired: 1}
	eventually(t, 30*time.Second, "qinglong_workers to count one worker in each state", func() bool {
		beat()
		m = metricstest.Scrape(t, "http://"+addr+"/metrics")
		for s, n := range want {
			if m.Sum("qinglong_workers", "state", s) != n {
				return false
			}
		}
		return true
	})
	for s, n := range want {
		if got := m.Value(t, "qinglong_workers", "state", s); got != n {
			t.Errorf("qinglong_workers{state=%q} = %g, want %g", s, got, n)
		}
	}
	if fam := m["qinglong_workers"]; len(fam.GetMetric()) != len(metrics.WorkerStateNames) {
		t.Errorf("qinglong_workers has %d series, want one per state (%v)", len(fam.GetMetric()), metrics.WorkerStateNames)
	}
}
