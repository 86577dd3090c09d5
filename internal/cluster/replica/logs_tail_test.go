package replica

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On the cluster `ql runs logs RUN --tail N` prints the last N lines of a
// worker's log, on the database and over a replica's API alike, and with
// -f follows on from there as the worker's chunks arrive, to the Run's
// end; a count out of range is refused (exit 2) saying the range.
func TestRunsLogsTailPrintsTheLastLinesOnTheCluster(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "logs-tail", 30*time.Second)
	admitRuns(t, env, rt, 1)
	rep := startReplica(t, bin, env, "replica-logs-tail")
	rep.await(t, CodeReady, 30*time.Second)
	onDB := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}
	overAPI := []string{"QL_TOKEN=" + env.Token(t, "tail", apitoken.Read), "QL_API_URL=http://" + rep.addr}

	w := newFakeWorker(t, env, rt, "w-tail")
	g, lease := w.startOne(t)
	var lines strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	offset, _ := w.appendLog(t, lease, 0, lines.String(), pgstore.WorkerSettings{})
	for name, env := range map[string][]string{"database": onDB, "API": overAPI} {
		if code, got := runQL(t, bin, env, "runs", "logs", g.RunID, "--tail", "2"); code != 0 || got != "line 2999\nline 3000\n" {
			t.Errorf("--tail 2 on the %s: exit %d, %q; want the last two lines", name, code, got)
		}
		if code, got := runQL(t, bin, env, "runs", "logs", g.RunID, "--tail", "10001"); code != 2 || !strings.Contains(got, "--tail 10001 is not a line count: give 1 to 10000 lines") {
			t.Errorf("--tail 10001 on the %s: exit %d, %q; want 2 saying the range", name, code, got)
		}
	}
	remoteOut, remoteEnd := startQL(t, bin, overAPI, "runs", "logs", "-f", "--tail", "1", g.RunID)
	localOut, localEnd := startQL(t, bin, onDB, "runs", "logs", "-f", "--tail", "1", g.RunID)
	for deadline := time.Now().Add(30 * time.Second); remoteOut.String() != "line 3000\n" || localOut.String() != "line 3000\n"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the followers printed %q over the API, %q on the database; want the last line", remoteOut.String(), localOut.String())
		}
	}
	offset, _ = w.appendLog(t, lease, offset, "the end\n", pgstore.WorkerSettings{})
	w.exit(t, lease, 0, offset)
	for name, end := range map[string]func() qlRun{"API": remoteEnd, "database": localEnd} {
		if r := end(); r.code != 0 || r.out != "line 3000\nthe end\n" || !strings.Contains(r.err, "ended: succeeded") {
			t.Errorf("-f --tail 1 on the %s: exit %d, %q, %q; want the last line, the rest, and the end", name, r.code, r.out, r.err)
		}
	}
}
