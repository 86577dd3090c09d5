package replica

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// TestTheReplicaLogsEachRunItFinishesOnce: two replicas serve a real
// worker. Each Run a worker's result finishes is one run.finished line, on
// the replica that recorded the result and on no other, as the single node
// logs it: the Run, its project, task and trigger, the attempt, its state,
// exit code and duration_ms, at warn for a failed Run and info for one that
// succeeded. An attempt its task retries finishes nothing, so a Run that
// fails twice is one line, of its second attempt. No line holds the
// command's environment.
func TestTheReplicaLogsEachRunItFinishesOnce(t *testing.T) {
	t.Parallel()
	const secret = "env-value-never-logged"
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(`project: finishing
tasks:
  - name: fails
    script: exit 3
    env: {MARKER: %[2]s}
  - name: succeeds
    script: exit 0
  - name: retried
    script: exit 4
    retry: {maxAttempts: 2, backoff: 1s, on: [failed]}
triggers:
  - {name: t-fails, task: fails, cron: %[1]q, timezone: UTC}
  - {name: t-succeeds, task: succeeds, cron: %[1]q, timezone: UTC}
  - {name: t-retried, task: retried, cron: %[1]q, timezone: UTC}
`, clustertest.QuietCron(), secret))
	cred := env.WorkerCredential(t, "finisher", nil, 1)
	serve := func(id string) *inProcess {
		p := serveInProcess(t, cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: id,
			RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second})
		p.awaitReady(t)
		return p
	}
	replicas := []*inProcess{serve("replica-a"), serve("replica-b")}
	runLoggedAgent(t, "http://"+replicas[0].workerAddr+",http://"+replicas[1].workerAddr, cred)

	env.MakeDue(t, 1000)
	eventually(t, 60*time.Second, "the three Runs to finish", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE finished_at_ms IS NOT NULL`) == 3
	})
	lines := func() []map[string]any {
		return append(replicas[0].logs.withCode(CodeRunFinished), replicas[1].logs.withCode(CodeRunFinished)...)
	}
	// A line is written just after the commit the wait saw.
	eventually(t, 10*time.Second, "a run.finished line for each Run", func() bool { return len(lines()) >= 3 })

	want := map[string]struct {
		level, state string
		exit, number float64
	}{
		"fails":    {"WARN", "failed", 3, 1},
		"succeeds": {"INFO", "succeeded", 0, 1},
		"retried":  {"WARN", "failed", 4, 2},
	}
	runs := map[string]int{}
	for _, l := range lines() {
		task, _ := l["task"].(string)
		w, ok := want[task]
		ms, timed := l["duration_ms"].(float64)
		if !ok || l["level"] != w.level || l["state"] != w.state || l["exit"] != w.exit || l["attempt"] != w.number ||
			l["project"] != "finishing" || l["trigger"] != "t-"+task || !timed || ms < 0 || l["run"] == nil {
			t.Errorf("run.finished line %v; want task %q at %s, state %s, exit %g, attempt %g, its project, trigger and duration_ms", l, task, w.level, w.state, w.exit, w.number)
		}
		runs[fmt.Sprint(l["run"])]++
	}
	for id, n := range runs {
		if n != 1 {
			t.Errorf("Run %s has %d run.finished lines across the replicas; want one", id, n)
		}
	}
	if len(runs) != 3 || len(lines()) != 3 {
		t.Errorf("%d run.finished lines for %d Runs; want one for each of the 3", len(lines()), len(runs))
	}
	for i, p := range replicas {
		if strings.Contains(p.logs.String(), secret) {
			t.Errorf("replica %d's log holds the command's environment:\n%s", i, p.logs)
		}
	}
}
