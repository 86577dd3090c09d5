package process

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A task revision published before QL_* names were refused may still carry
// one; the attempt's identity must win over it (os/exec keeps the last
// entry of a name), or escaped descendants could not be traced back.
func TestTheAttemptsIdentityWinsOverATasksOwnQLVariables(t *testing.T) {
	t.Parallel()
	a := run.Attempt{ID: "attempt-1", RunID: "run-1"}
	cmd := task.Command{Env: []task.EnvVar{{Name: "QL_ATTEMPT_ID", Value: "forged"}, {Name: "QL_RUN_ID", Value: "forged"}, {Name: "X", Value: "y"}}}
	last := map[string]string{}
	for _, kv := range environment([]string{"PATH=/bin"}, a.RunID, a.ID, cmd, nil) {
		name, value, _ := strings.Cut(kv, "=")
		last[name] = value
	}
	if last["QL_ATTEMPT_ID"] != a.ID || last["QL_RUN_ID"] != a.RunID || last["X"] != "y" || last["PATH"] != "/bin" {
		t.Fatalf("effective environment %v; want the attempt's identity over the task's values", last)
	}
}
