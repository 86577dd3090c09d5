package replica

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// retriedRun admits one Run of a task retried once after failing and has
// a worker run it twice: attempt 1 prints "first try" and fails, attempt
// 2 prints "second try" and succeeds. It returns the Run's id.
func retriedRun(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime) string {
	t.Helper()
	id := admitRuns(t, env, rt, 1)[0]
	w := newFakeWorker(t, env, rt, "w-retry")
	_, lease := w.startOne(t)
	offset, _ := w.appendLog(t, lease, 0, "first try\n", pgstore.WorkerSettings{})
	if reply := w.exit(t, lease, 3, offset); reply.RunState != string(run.RetryWait) {
		t.Fatalf("the first attempt's failure left the run %s; want retry_wait", reply.RunState)
	}
	if res, err := rt.SweepLeases(t.Context(), 16); err != nil || res.Requeued != 1 {
		t.Fatalf("sweep: %+v, %v; want the retried run queued again", res, err)
	}
	g, lease := w.startOne(t)
	if g.RunID != id || g.AttemptNumber != 2 {
		t.Fatalf("second grant: run %s attempt %d; want attempt 2 of %s", g.RunID, g.AttemptNumber, id)
	}
	offset, _ = w.appendLog(t, lease, 0, "second try\n", pgstore.WorkerSettings{})
	w.exit(t, lease, 0, offset)
	return id
}

// On the cluster `ql runs logs --attempt N` prints the output of attempt
// N of a retried Run (by default the latest); with -f it returns once
// that attempt has ended; a number the Run does not have is refused with
// the numbers it has.
func TestRunsLogsAttemptPrintsEachAttemptsOutputOnTheCluster(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "attempt-logs", 30*time.Second)
	id := retriedRun(t, env, rt)
	runtimeEnv := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "second try\n"},
		{[]string{"--attempt", "1"}, "first try\n"},
		{[]string{"--attempt", "2"}, "second try\n"},
		{[]string{"--attempt", "1", "-f"}, "first try\n(attempt 1 of run " + id + " is failed; the run is succeeded)\n"},
	} {
		if code, out := runQL(t, bin, runtimeEnv, append([]string{"runs", "logs", id}, c.args...)...); code != 0 || out != c.want {
			t.Errorf("runs logs %v: exit %d %q; want %q", c.args, code, out, c.want)
		}
	}
	if code, out := runQL(t, bin, runtimeEnv, "runs", "logs", id, "--attempt", "3"); code != 1 || !strings.Contains(out, "run "+id+" has no attempt 3; its attempts are 1, 2") {
		t.Fatalf("runs logs --attempt 3: exit %d %q; want refused, naming attempts 1 and 2", code, out)
	}
}
