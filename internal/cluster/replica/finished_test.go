package replica

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// TestReplicasCountEachFinishedRunOnceByOutcome: two replicas serve one
// worker, driven by hand over the worker ingress. Every outcome shows 0
// before any Run finished. A Run whose attempt fails raises failed by
// exactly 1 on the replica that took the completion, and the worker's
// retry of that completion (its reply lost) on the other replica raises
// nothing there. A Run whose task retries a failure is not finished by its
// first failed attempt — nor by a replay of it — only by its last: failed
// then rises by 1 more. Summed over the replicas, failed equals the failed
// Runs in the database.
func TestReplicasCountEachFinishedRunOnceByOutcome(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	applyPlainAndRetried(t, env, "outcomes", "exit 1", "{maxAttempts: 2, backoff: 1s, on: [failed]}")
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cred, err := admin.WorkerCreate(t.Context(), "by-hand", nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	serve := func(id string) (*inProcess, string) {
		p := serveInProcess(t, metricsReplicaFlags(env, id))
		addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
		return p, "http://" + addr + "/metrics"
	}
	a, metricsA := serve("replica-a")
	b, metricsB := serve("replica-b")
	counts := func(url string) map[run.State]float64 {
		t.Helper()
		m := metricstest.Scrape(t, url)
		out := map[run.State]float64{}
		for _, s := range run.FinishedStates {
			out[s] = m.Value(t, "qinglong_runs_finished_total", "outcome", string(s))
		}
		out["retried"] = m.Value(t, "qinglong_attempts_retried_total")
		return out
	}
	expect := func(what, url string, failed, retried float64) {
		t.Helper()
		got := counts(url)
		want := map[run.State]float64{run.Succeeded: 0, run.Failed: failed, run.TimedOut: 0, run.Cancelled: 0, run.Lost: 0, "retried": retried}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
		t.Logf("%s: failed %g, attempts retried %g", what, got[run.Failed], got["retried"])
	}
	expect("replica A before any Run finished", metricsA, 0, 0)
	expect("replica B before any Run finished", metricsB, 0, 0)

	env.MakeDue(t, 1000)
	eventually(t, 30*time.Second, "both Runs admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == 2 })
	a.awaitReady(t)
	b.awaitReady(t)
	call := func(p *inProcess, path string, body, into any) []byte {
		t.Helper()
		status, raw := post(t, http.DefaultClient, "http://"+p.workerAddr+path, cred, body)
		if status != http.StatusOK || json.Unmarshal(raw, into) != nil {
			t.Fatalf("%s: %d %s", path, status, raw)
		}
		return raw
	}
	var reg workerproto.RegisterReply
	call(a, workerproto.PathRegister, workerproto.RegisterRequest{Capacity: 2, Version: "test"}, &reg)
	// pull asks for up to max grants (waiting for them) and starts each,
	// returning the leases by task.
	pull := func(max int) map[string]workerproto.Lease {
		t.Helper()
		token := make([]byte, 32)
		if _, err := rand.Read(token); err != nil {
			t.Fatal(err)
		}
		req := workerproto.PullRequest{SessionID: reg.SessionID, OfferID: uuid.NewString(), Token: base64.RawURLEncoding.EncodeToString(token), Max: max,
			WaitMs: workerproto.MaxPullWait.Milliseconds()}
		var grants workerproto.PullReply
		call(a, workerproto.PathPull, req, &grants)
		if len(grants.Grants) != max {
			t.Fatalf("pull: %+v, want %d grants", grants, max)
		}
		out := map[string]workerproto.Lease{}
		for _, g := range grants.Grants {
			l := workerproto.Lease{AttemptID: g.AttemptID, Token: req.Token, LeaseVersion: g.LeaseVersion}
			var started workerproto.LeaseReply
			call(a, workerproto.PathStart, workerproto.StartRequest{Lease: l}, &started)
			if started.Reply != workerproto.ReplyRenewed {
				t.Fatalf("start of %s: %+v", g.Task, started)
			}
			l.LeaseVersion = started.LeaseVersion
			out[g.Task] = l
		}
		return out
	}
	// fail completes a lease with exit 1 on p and checks the Run's state.
	fail := func(p *inProcess, l workerproto.Lease, runState string) []byte {
		t.Helper()
		code := int64(1)
		var reply workerproto.CompleteReply
		raw := call(p, workerproto.PathComplete, workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeExited, ExitCode: &code}, &reply)
		if reply.AttemptState != string(run.AttemptFailed) || reply.RunState != runState {
			t.Fatalf("completion: %+v, want the attempt failed and the Run %s", reply, runState)
		}
		return raw
	}
	leases := pull(2)

	// The plain Run fails on A; the worker retries the completion on B.
	first := fail(a, leases["plain"], string(run.Failed))
	expect("replica A after the plain Run failed", metricsA, 1, 0)
	if again := fail(b, leases["plain"], string(run.Failed)); string(again) != string(first) {
		t.Fatalf("the replayed completion answered %s, the first %s", again, first)
	}
	expect("replica B after the replayed completion", metricsB, 0, 0)
	expect("replica A after the replayed completion", metricsA, 1, 0)

	// The retried Run's first attempt fails on B: not finished, a retry;
	// its replay on A counts nothing.
	fail(b, leases["retried"], string(run.RetryWait))
	expect("replica B after attempt 1 of the retried Run failed", metricsB, 0, 1)
	fail(a, leases["retried"], string(run.RetryWait))
	expect("replica A after attempt 1's completion was replayed", metricsA, 1, 0)

	// Its second and last attempt fails on B: now it has finished.
	second := pull(1)
	fail(b, second["retried"], string(run.Failed))
	expect("replica B after attempt 2 of the retried Run failed", metricsB, 1, 1)
	fail(a, second["retried"], string(run.Failed))
	expect("replica A after attempt 2's completion was replayed", metricsA, 1, 0)

	total := counts(metricsA)[run.Failed] + counts(metricsB)[run.Failed]
	if inDB := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'failed'`); total != float64(inDB) || inDB != 2 {
		t.Fatalf("failed summed over the replicas: %g; the database holds %d failed Runs (want 2)", total, inDB)
	}
}

// applyPlainAndRetried applies project with two tasks running script, on
// triggers of a quiet cron (clustertest.MakeDue makes them due): plain,
// with trigger t-plain, which is never retried, and retried, with trigger
// t-retried, whose retry policy is retry (a YAML flow mapping).
func applyPlainAndRetried(t *testing.T, env *clustertest.Env, project, script, retry string) {
	t.Helper()
	env.Apply(t, fmt.Sprintf(`project: %[2]s
tasks:
  - name: plain
    script: %[3]s
  - name: retried
    script: %[3]s
    retry: %[4]s
triggers:
  - {name: t-plain, task: plain, cron: %[1]q, timezone: UTC}
  - {name: t-retried, task: retried, cron: %[1]q, timezone: UTC}
`, clustertest.QuietCron(), project, script, retry))
}
