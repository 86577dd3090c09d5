package execution

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A Run whose task needs a secret the worker's --secrets-file lacks fails
// before its command starts, and its log, read with `ql runs logs` far
// from the worker, gives the command that sets the secret in that file
// with the binary running the worker (ql-worker's own secrets command, or
// ql's under `ql worker`), as it can be pasted, and the worker whose host
// it is to be run on.
func TestARunWhoseSecretTheWorkerLacksSaysTheCommandThatSetsItOnTheWorkersHost(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, fmt.Sprintf(`project: secrets
tasks:
  - name: needs-token
    env:
      API_TOKEN: {secret: api_token}
    script: echo ran >> %s/ran
triggers:
  - {name: needs-token, task: needs-token, cron: %q, timezone: UTC}
`, c.out(), clustertest.QuietCron()))
	// A directory with a space: the command is printed to be pasted.
	dir := filepath.Join(c.dir, "worker secrets")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(file, []byte(`{"other_secret": "an-unrelated-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.startReplica(t, "replica", "", "")
	for _, bin := range []struct {
		name    string
		command []string
		secrets string
	}{
		{"worker-alone", []string{c.qlw}, "ql-worker secrets"},
		{"worker-of-ql", []string{c.ql, "worker"}, "ql secrets"},
	} {
		w := c.newWorker(t, bin.name, 1)
		args := slices.Concat(bin.command[1:], []string{"--server", r.workerURL(), "--credential-file", w.credFile, "--data-dir", w.dataDir,
			"--concurrency", "1", "--stop-timeout", "5s", "--secrets-file", file})
		p := startProc(t, w.name, bin.command[0], args, c.baseEnv(), c.logPath(w.name))
		p.awaitLog(t, "worker_registered", 1, startWithin)

		run := c.fire(t, "needs-token")
		c.awaitRun(t, run, 20*time.Second, "failed")
		code, log := c.runQL(t, []string{"QL_DATABASE_URL=" + c.env.URL(pgstore.RoleRuntime)}, "runs", "logs", run)
		want := "set it with `" + bin.secrets + " set api_token --secrets-file " + shellquote.Quote(file) + "` on the host of worker " + w.name
		if code != 0 || !strings.Contains(log, `secret "api_token" is not defined in `+file) || !strings.Contains(log, want) {
			t.Errorf("%s: ql runs logs exit %d:\n%s\nwant the secret, the file and %q", bin.name, code, log, want)
		}
		if strings.Contains(log, "an-unrelated-value") {
			t.Errorf("%s: the Run's log quotes a value of the secrets file:\n%s", bin.name, log)
		}
		if st := p.terminate(t); !st.Success() {
			t.Fatalf("%s exited %v on SIGTERM", bin.name, st)
		}
	}
	if ran := readLines(t, filepath.Join(c.out(), "ran")); len(ran) != 0 {
		t.Fatalf("the command ran %d times without its secret", len(ran))
	}
}
