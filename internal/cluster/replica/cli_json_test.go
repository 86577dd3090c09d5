package replica

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// runQLSplit is runQL with standard output and standard error apart: what
// a script parses as JSON is standard output alone.
func runQLSplit(t *testing.T, bin string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "QL_DATABASE_URL=", "QL_HTTP_ADDR=", "QL_API_URL="), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// `ql triggers run -o json` and `ql runs rerun -o json` of a Run that no
// worker can take (its task is placed on gpu=yes, the only worker has no
// such label) carry the API answer's waits object, over --api-url and on
// the database alike, and not only the note on stderr.
func TestRunNowAndRerunAsJSONCarryWhyNoWorkerTakesTheRun(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, strings.Replace(clustertest.Triggers("pl", 1, clustertest.QuietCron()),
		"    script: echo hi\n", "    script: echo hi\n    placement: {labels: {gpu: \"yes\"}}\n", 1))
	env.ConnectWorker(t, env.Runtime(t, "cpu-host", 30*time.Second), "cpu", map[string]string{"gpu": "no"}, 2)
	r := startReplica(t, bin, env, "json-waits")
	r.await(t, CodeReady, 30*time.Second)
	ways := map[string][]string{
		"over the API":    {"QL_TOKEN=" + env.Token(t, "operator", apitoken.Operate), "QL_API_URL=http://" + r.addr},
		"on the database": {"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)},
	}
	for way, vars := range ways {
		var answer struct {
			RunID string        `json:"runId"`
			Waits *view.Waiting `json:"waits"`
		}
		check := func(what string, args ...string) string {
			t.Helper()
			code, out, errOut := runQLSplit(t, bin, vars, append(args, "-o", "json")...)
			answer.RunID, answer.Waits = "", nil
			if code != 0 || json.Unmarshal([]byte(out), &answer) != nil {
				t.Fatalf("%s %s: exit %d %q %q", what, way, code, out, errOut)
			}
			if w := answer.Waits; w == nil || w.Reason != run.WaitNoMatchingWorker || w.Labels["gpu"] != "yes" || w.Message == "" {
				t.Fatalf("%s -o json %s printed %s; want waits with reason %s, the label gpu=yes and its message", what, way, out, run.WaitNoMatchingWorker)
			}
			return answer.RunID
		}
		id := check("triggers run", "triggers", "run", "pl/t00000")
		if code, out, errOut := runQLSplit(t, bin, vars, "runs", "cancel", id); code != 0 {
			t.Fatalf("runs cancel %s: exit %d %q %q", way, code, out, errOut)
		}
		check("runs rerun", "runs", "rerun", id)
	}
}

// A replica answers an apply's dry run over its API, as `ql apply
// --dry-run` answers it with the runtime role's URL (the same counts):
// a dry run only reads, and the runtime role reads the catalog. A real
// apply over the same API stays refused, 403 not_over_api to a token of
// any scope, exit 5, and nothing is published.
func TestAReplicaAnswersAnApplyDryRunAndStillRefusesAnApply(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("dry", 1, clustertest.QuietCron()))
	r := startReplica(t, bin, env, "dry-run")
	r.await(t, CodeReady, 30*time.Second)
	changed := strings.Replace(clustertest.Triggers("dry", 2, clustertest.QuietCron()), "script: echo hi", "script: echo changed", 1)
	file := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(file, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	api := []string{"QL_TOKEN=" + env.Token(t, "adm", apitoken.Admin), "QL_API_URL=http://" + r.addr}
	revisions := func() int64 {
		return env.Int(t, `SELECT count(*) FROM qinglong.task_revisions`) + env.Int(t, `SELECT count(*) FROM qinglong.trigger_revisions`)
	}
	before := revisions()
	for way, vars := range map[string][]string{"over the API": api, "on the database": {"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}} {
		code, out, errOut := runQLSplit(t, bin, vars, "apply", "--dry-run", "-f", file, "-o", "json")
		var plan struct {
			DryRun                      bool
			Created, Updated, Unchanged int
		}
		if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || !plan.DryRun || plan.Created != 1 || plan.Updated != 2 || plan.Unchanged != 1 {
			t.Fatalf("apply --dry-run -o json %s: exit %d %q %q; want a dry run creating a trigger and updating the task and the trigger that follows it", way, code, out, errOut)
		}
	}
	if code, out, errOut := runQLSplit(t, bin, api, "apply", "--dry-run", "-f", file); code != 0 || !strings.Contains(out, "dry run, nothing written") {
		t.Fatalf("apply --dry-run over the API: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := runQLSplit(t, bin, api, "apply", "-f", file, "-o", "json"); code != 5 || out != "" || !strings.Contains(errOut, `"reason":"not_over_api"`) {
		t.Fatalf("apply over the API: exit %d %q %q; want exit 5, not_over_api, nothing on stdout", code, out, errOut)
	}
	// A token of any scope is told so, as before: no token would do.
	st, body, _ := httpcall.Bearer(t, http.MethodPost, "http://"+r.addr+"/api/v1/apply", env.Token(t, "reader", apitoken.Read), []byte(changed))
	if st != http.StatusForbidden || !strings.Contains(string(body), `"reason":"not_over_api"`) {
		t.Fatalf("apply over the API with a read token: %d %s; want 403 not_over_api", st, body)
	}
	if after := revisions(); after != before {
		t.Fatalf("%d revisions before and %d after a dry run and a refused apply; want none published", before, after)
	}
}
