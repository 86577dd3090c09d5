package replica

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On the cluster `ql runs list` gives a finished Run's RAN (its attempts'
// run times added up) and "-" for one not finished, `runs show` a ran
// line, and -o json of both ranMs: on the database and over the API
// alike.
func TestOnTheClusterRunsListAndShowSayHowLongAFinishedRunsAttemptsRan(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "cli-runs-ran", 30*time.Second)
	runIDs := admitRuns(t, env, rt, 2)
	w := newFakeWorker(t, env, rt, "w-ran")
	g, lease := w.startOne(t)
	if w.exit(t, lease, 0, 0).RunState != string(run.Succeeded) {
		t.Fatalf("the grant of %s did not end succeeded", g.RunID)
	}
	finished, queued := g.RunID, runIDs[0]
	if queued == finished {
		queued = runIDs[1]
	}
	// The attempt ran 2.5 s, as the database records it.
	env.Exec(t, `UPDATE qinglong.attempts SET started_at_ms = finished_at_ms - 2500 WHERE run_id = $1`, finished)
	check := func(where string, vars []string) {
		t.Helper()
		code, out := runQL(t, bin, vars, "runs", "list")
		if code != 0 || !regexp.MustCompile(`(?m)^ID +STATE +RAN +SCHEDULED FOR `).MatchString(out) ||
			!regexp.MustCompile(`(?m)^`+finished+` +succeeded +2\.5s `).MatchString(out) || !regexp.MustCompile(`(?m)^`+queued+` +queued +- `).MatchString(out) {
			t.Fatalf("runs list %s: exit %d\n%s\nwant RAN 2.5s for %s and - for the queued %s", where, code, out, finished, queued)
		}
		if code, out := runQL(t, bin, vars, "runs", "show", finished); code != 0 || !strings.Contains(out, "\nran        2.5s (") {
			t.Fatalf("runs show %s: exit %d\n%s\nwant a ran line of 2.5s", where, code, out)
		}
		code, out, errOut := runQLSplit(t, bin, vars, "runs", "list", "-o", "json")
		var page struct {
			Runs []struct {
				ID    string
				RanMs *int64
			}
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil || code != 0 {
			t.Fatalf("runs list -o json %s: exit %d %q %q %v", where, code, out, errOut, err)
		}
		for _, r := range page.Runs {
			if ran := r.RanMs != nil && *r.RanMs == 2500; (r.ID == finished) != ran || (r.ID != finished && r.RanMs != nil) {
				t.Fatalf("runs list -o json %s: %s has ranMs %v; want 2500 for %s alone, none for a Run not finished", where, r.ID, r.RanMs, finished)
			}
		}
		if code, out, _ := runQLSplit(t, bin, vars, "runs", "show", finished, "-o", "json"); code != 0 || !strings.Contains(out, `"ranMs": 2500`) {
			t.Fatalf("runs show -o json %s: exit %d %s; want ranMs 2500", where, code, out)
		}
	}
	check("on the database", []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)})
	r := startReplica(t, bin, env, "cli-runs-ran-api")
	r.await(t, CodeReady, 30*time.Second)
	check("over the API", []string{"QL_TOKEN=" + env.Token(t, "reader", apitoken.Read), "QL_API_URL=http://" + r.addr})
}
