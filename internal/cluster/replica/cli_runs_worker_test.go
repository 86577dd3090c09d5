package replica

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On the cluster `ql runs list` names the worker of each Run's latest
// attempt in a WORKER column and says how a failed Run ended ("exit 1"),
// and --worker NAME keeps the Runs any attempt of which that worker held:
// on the database and over the API alike.
func TestRunsListNamesEachRunsWorkerAndListsTheRunsAWorkerRan(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "cli-runs-worker", 30*time.Second)
	runIDs := admitRuns(t, env, rt, 3)
	retried, succeeded, queued := runIDs[0], runIDs[1], runIDs[2]
	a, b := newFakeWorker(t, env, rt, "w-a"), newFakeWorker(t, env, rt, "w-b")
	if g, lease := a.startOne(t); g.RunID != retried || a.exit(t, lease, 1, 0).RunState != string(run.RetryWait) {
		t.Fatalf("w-a's first grant %s; want %s, failed and waiting to retry", g.RunID, retried)
	}
	if res, err := rt.SweepLeases(t.Context(), 16); err != nil || res.Requeued != 1 {
		t.Fatalf("sweep: %+v, %v; want the retried run queued again", res, err)
	}
	if g, lease := b.startOne(t); g.RunID != retried || b.exit(t, lease, 1, 0).RunState != string(run.Failed) {
		t.Fatalf("w-b's grant %s; want the retry of %s, failed", g.RunID, retried)
	}
	if g, lease := a.startOne(t); g.RunID != succeeded || a.exit(t, lease, 0, 0).RunState != string(run.Succeeded) {
		t.Fatalf("w-a's second grant %s; want %s, succeeded", g.RunID, succeeded)
	}
	rows := func(out string) map[string]string {
		got := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			if id, _, ok := strings.Cut(line, " "); ok {
				got[id] = regexp.MustCompile(` +`).ReplaceAllString(line, " ")
			}
		}
		return got
	}
	check := func(where string, env []string, args ...string) {
		t.Helper()
		code, out := runQL(t, bin, env, append([]string{"runs", "list"}, args...)...)
		got := rows(out)
		if code != 0 || !regexp.MustCompile(`ERROR +WORKER\n`).MatchString(out) || len(got) != 3 ||
			!strings.HasPrefix(got[retried], retried+" failed ") || !strings.HasSuffix(got[retried], " clock exit 1 w-b") ||
			!strings.HasSuffix(got[succeeded], " clock - w-a") || !strings.HasSuffix(got[queued], " clock - -") {
			t.Fatalf("runs list %s: exit %d\n%s\nwant a WORKER column naming w-b for %s (failed, exit 1), w-a for %s and none for %s", where, code, out, retried, succeeded, queued)
		}
		for worker, want := range map[string][]string{"w-a": {retried, succeeded}, "w-b": {retried}} {
			code, out := runQL(t, bin, env, append([]string{"runs", "list", "--worker", worker}, args...)...)
			got := rows(out)
			if code != 0 || len(got) != len(want) {
				t.Fatalf("runs list --worker %s %s: exit %d\n%s\nwant the Runs %v", worker, where, code, out, want)
			}
			for _, id := range want {
				if _, ok := got[id]; !ok {
					t.Fatalf("runs list --worker %s %s left out %s:\n%s", worker, where, id, out)
				}
			}
		}
		if code, out := runQL(t, bin, env, append([]string{"runs", "list", "--worker", "w-nobody"}, args...)...); code == 0 || !strings.Contains(out, `no worker named "w-nobody"`) {
			t.Fatalf("runs list --worker w-nobody %s: exit %d %q; want a refusal naming the worker", where, code, out)
		}
	}
	check("on the database", []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)})
	r := startReplica(t, bin, env, "cli-runs-worker-api")
	r.await(t, CodeReady, 30*time.Second)
	check("over the API", []string{"QL_TOKEN=" + env.Token(t, "reader", apitoken.Read)}, "--api-url", "http://"+r.addr)
}
