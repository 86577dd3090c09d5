package replica

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// TestARunLostToACrashedWorkerIsLoggedAtWarnByTheSweep: a worker starts
// two Runs and vanishes. The replica whose lease sweep ends them logs the
// Run it finishes lost as a worker's failed result is logged: one
// run.finished line at WARN with its project, task, trigger, attempt,
// duration_ms and the reason code. The Run whose task retries a lost
// attempt has not finished and gets no line.
func TestARunLostToACrashedWorkerIsLoggedAtWarnByTheSweep(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	applyPlainAndRetried(t, env, "crashing", "sleep 60", "{maxAttempts: 2, backoff: 1m, on: [lost]}")
	p := serveInProcess(t, cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "sweeper",
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second})
	p.awaitReady(t)
	env.MakeDue(t, 1000)
	eventually(t, 30*time.Second, "both Runs admitted", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'queued'`) == 2
	})
	// The worker: granted both Runs under a one-second lease, it starts
	// them and is never heard from again.
	rt := env.Runtime(t, "crashing-worker", 30*time.Second)
	w, reg := env.ConnectWorker(t, rt, "crasher", nil, 2)
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	short := pgstore.WorkerSettings{RunLease: time.Second}
	reply, err := rt.PullGrants(t.Context(), w, workerproto.PullRequest{SessionID: reg.SessionID, OfferID: ids.New(), Token: token, Max: 2}, short)
	if err != nil || len(reply.Grants) != 2 {
		t.Fatalf("pull: %+v, %v; want both Runs granted", reply, err)
	}
	for _, g := range reply.Grants {
		lease := workerproto.Lease{AttemptID: g.AttemptID, Token: token, LeaseVersion: g.LeaseVersion}
		if _, err := rt.StartAttempt(t.Context(), w, workerproto.StartRequest{Lease: lease}, short); err != nil {
			t.Fatalf("start: %v", err)
		}
	}
	eventually(t, 30*time.Second, "the sweep to end both attempts", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.attempts WHERE state = 'lost'`) == 2
	})
	eventually(t, 10*time.Second, "the lost Run's run.finished line", func() bool { return len(p.logs.withCode(CodeRunFinished)) >= 1 })
	lines := p.logs.withCode(CodeRunFinished)
	if len(lines) != 1 {
		t.Fatalf("%d run.finished lines: %v; want one, of the Run that was not retried", len(lines), lines)
	}
	l := lines[0]
	ms, timed := l["duration_ms"].(float64)
	lostRun := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'lost' AND id::text = $1`, fmt.Sprint(l["run"]))
	if l["level"] != "WARN" || l["project"] != "crashing" || l["task"] != "plain" || l["trigger"] != "t-plain" || l["attempt"] != float64(1) ||
		l["state"] != "lost" || l["error"] != pgstore.ErrorCodeLeaseExpired || !timed || ms < 0 || lostRun != 1 {
		t.Fatalf("run.finished line %v; want the lost Run of task plain at WARN, attempt 1, state lost, error %s, its project, trigger and duration_ms",
			l, pgstore.ErrorCodeLeaseExpired)
	}
}
