package pgstore

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// TestTheEnvGateNamesTheWorkersReadThroughItsConstant: the statements
// deciding which sessions may take a Run of a project with env compare
// the session's reads with workerproto.ReadProjectEnv, the name a worker
// sends, written {{read_project_env}}; no block spells the name out, so a
// rename of the constant moves the gate with it instead of shutting every
// worker out of such Runs.
func TestTheEnvGateNamesTheWorkersReadThroughItsConstant(t *testing.T) {
	spelled := sqlString(workerproto.ReadProjectEnv)
	files, err := fs.Glob(sqlFiles, "sql/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		b, err := fs.ReadFile(sqlFiles, file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "--")
			if strings.Contains(code, spelled) {
				t.Errorf("%s:%d spells the worker's read %s out; write {{read_project_env}}", file, i+1, spelled)
			}
		}
	}
	for _, name := range []string{"MonitorUnplaceable", "RunWaiting", "Dispatch", "SweepNoteWaiting"} {
		if text := statements[name]; !strings.Contains(text, spelled+" = ANY (") {
			t.Errorf("%s does not compare a session's reads with %s:\n%s", name, spelled, text)
		}
	}
}
