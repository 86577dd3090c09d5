package replica

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
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
