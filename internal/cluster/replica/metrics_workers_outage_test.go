package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// A PostgreSQL outage longer than the session lease expires every worker's
// session, healthy workers' too: two real workers that register again
// once the replica answers count as expired, never as lost, however long
// after; a worker that never comes back is counted lost once the run
// lease it registered under and a session lease have passed since its
// session expired.
func TestWorkersBackAfterADatabaseOutageAreNotCountedLost(t *testing.T) {
	t.Parallel()
	srv, env := ownServer(t)
	f := metricsReplicaFlags(env, "replica-outage-workers")
	f.WorkerAddr = unassignedAddr(t)
	f.RunLease = MinRunLease
	p := serveInProcess(t, f)
	p.awaitReady(t)
	addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
	server := "http://" + f.WorkerAddr
	var back []*logLines
	for _, name := range []string{"back-1", "back-2"} {
		logs, _ := runLoggedAgent(t, server, env.WorkerCredential(t, name, nil, 1))
		back = append(back, logs)
	}
	for _, logs := range back {
		eventually(t, 30*time.Second, "the workers to register", func() bool { return len(logs.withCode("worker_registered")) == 1 })
	}
	// The worker that goes away: registered, then silent for good.
	env.ConnectWorker(t, env.Runtime(t, "test-gone", pgstore.DefaultLease), "gone", nil, 1)

	postmaster := srv.PID()
	if err := srv.Restart(t.Context(), workerproto.SessionLease+2*time.Second); err != nil {
		t.Fatal(err)
	}
	if srv.PID() == postmaster {
		t.Fatalf("the postmaster (pid %d) did not change: no outage happened", postmaster)
	}
	env.Super.Reset()

	// Every session of the first generation expired: the outage's doing,
	// as no replica could record a heartbeat.
	eventually(t, time.Minute, "the sweep to expire every session the outage outlasted", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions WHERE state = 'expired' AND generation = 1`) == 3
	})
	for _, logs := range back {
		eventually(t, time.Minute, "the workers to register again", func() bool { return len(logs.withCode("worker_registered")) == 2 })
	}
	states := func() (expired, lost float64) {
		m := metricstest.Scrape(t, "http://"+addr+"/metrics")
		return m.Sum("qinglong_workers", "state", metrics.WorkerExpired), m.Sum("qinglong_workers", "state", metrics.WorkerLost)
	}
	if _, lost := states(); lost != 0 {
		t.Fatalf("qinglong_workers{state=\"lost\"} = %g before any grace passed, want 0", lost)
	}
	// Once the grace of every expiry (the run lease its session was
	// registered under and a session lease) has passed in database time,
	// only the worker that stayed away is lost.
	eventually(t, pgstore.DefaultRunLease+workerproto.SessionLease+time.Minute, "the grace of every expiry to pass", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions
		                    WHERE state = 'expired' AND updated_at_ms + run_lease_ms + $1 > `+pgstore.ClockMsSQL, workerproto.SessionLease.Milliseconds()) == 0
	})
	var expired, lost float64
	eventually(t, 30*time.Second, "a reading after the grace", func() bool {
		expired, lost = states()
		return expired+lost == 3 && lost > 0
	})
	if expired != 2 || lost != 1 {
		t.Fatalf("qinglong_workers: %g expired and %g lost, want 2 expired (the workers back after the outage) and 1 lost (the one that stayed away)", expired, lost)
	}
}
