package execution

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// stoppingListedWithin bounds how long after its SIGTERM a worker that
// drains its commands may still be listed as taking work: moments, with
// room for a loaded machine, where it used to be listed active with free
// slots until it exited, up to its stop timeout later.
const stoppingListedWithin = 2 * time.Second

// qlStreams runs the ql binary to its end with env added to the base and
// returns its exit code and its two streams apart, so JSON on standard
// output is read without the notes on standard error.
func (c *cluster) qlStreams(t testing.TB, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.ql, args...)
	cmd.Env = append(c.baseEnv(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("ql %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// listedWorker is a worker as `ql workers list -o json` prints it.
type listedWorker struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	DrainedBy string `json:"drainedBy"`
	Sessions  int    `json:"sessions"`
	FreeSlots int    `json:"freeSlots"`
}

// listWorker reads worker name from `ql workers list -o json`, run with
// the runtime role's URL, which may read the workers as the admin's may.
func (c *cluster) listWorker(t testing.TB, name string) listedWorker {
	t.Helper()
	code, out, errOut := c.qlStreams(t, []string{"QL_DATABASE_URL=" + c.env.URL(pgstore.RoleRuntime)}, "workers", "list", "-o", "json")
	var l struct {
		Workers []listedWorker `json:"workers"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
		t.Fatalf("ql workers list -o json with the runtime role's URL: exit %d: %s %s", code, out, errOut)
	}
	for _, w := range l.Workers {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("ql workers list does not list %s: %s", name, out)
	return listedWorker{}
}

// A worker stopping on SIGTERM while its only slot runs a long command
// drains it for up to its stop timeout (ten minutes here): within moments
// of the signal `ql workers list` shows it draining by its own stop, with
// no free slot, and a Run queued then (`ql triggers run`) says on stderr,
// and in `ql runs show`, that it waits because every worker drains — not
// only once the worker exits. The worker never takes that Run; once its
// command ends it exits 0 and is no longer listed live.
func TestAWorkerStoppingOnSIGTERMIsListedDrainingAtOnceAndARunQueuedThenSaysEveryWorkerDrains(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 30*time.Second)
	c.apply(t, project("sigdrain", c.out(), map[string]string{"sleep": holdScript + "\ntimeout: 30m", "quick": "command: [\"/bin/true\"]"}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	w := c.newWorker(t, "worker", 4)
	p := c.startWorker(t, w, r.workerURL(), 1, "--stop-timeout", "10m")
	running := c.fire(t, "sleep")
	c.awaitRun(t, running, 20*time.Second, "running")
	c.awaitPid(t, c.attempts(t, running)[0].ID)
	if got := c.listWorker(t, "worker"); got.State != "active" || got.DrainedBy != "" || got.Sessions != 1 {
		t.Fatalf("before its SIGTERM the worker is listed %+v, want active with one session", got)
	}

	termAt := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var listed listedWorker
	eventually(t, 10*time.Second, "the stopping worker to be listed draining", func() bool {
		listed = c.listWorker(t, "worker")
		return listed.State == "draining"
	})
	took := time.Since(termAt)
	t.Logf("the worker stopping on SIGTERM was listed draining %s after the signal", took)
	if took >= stoppingListedWithin {
		t.Fatalf("the worker was listed draining %s after its SIGTERM, want within %s", took, stoppingListedWithin)
	}
	if listed.DrainedBy != "worker" || listed.Sessions != 1 || listed.FreeSlots != 0 {
		t.Fatalf("the stopping worker is listed %+v, want draining by the worker itself, its one session, no free slot", listed)
	}

	runtimeURL := []string{"QL_DATABASE_URL=" + c.env.URL(pgstore.RoleRuntime)}
	code, out, note := c.qlStreams(t, runtimeURL, "triggers", "run", "sigdrain/quick", "-o", "json")
	var queued struct {
		RunID string `json:"runId"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &queued) != nil || queued.RunID == "" {
		t.Fatalf("ql triggers run: exit %d: %s %s", code, out, note)
	}
	if !strings.Contains(note, "the Run waits: every connected worker (1) is draining") {
		t.Fatalf("ql triggers run said %q on stderr, want a note that the Run waits because every worker drains", note)
	}
	code, out, errOut := c.qlStreams(t, runtimeURL, "runs", "show", queued.RunID, "-o", "json")
	var shown struct {
		Run struct {
			State string `json:"state"`
		} `json:"run"`
		Waiting *struct {
			Reason  string `json:"reason"`
			Workers int    `json:"workers"`
		} `json:"waiting"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil {
		t.Fatalf("ql runs show -o json: exit %d: %s %s", code, out, errOut)
	}
	if shown.Run.State != "queued" || shown.Waiting == nil || shown.Waiting.Reason != "workers_draining" || shown.Waiting.Workers != 1 {
		t.Fatalf("the Run queued while the worker stops shows %s waiting %+v, want queued, workers_draining of 1 worker", shown.Run.State, shown.Waiting)
	}
	if p.exited() {
		t.Fatalf("the worker exited (%v) with its command still running, before its stop timeout", p.state)
	}

	c.release(t)
	c.awaitRun(t, running, 20*time.Second, "succeeded")
	p.wait(t)
	if !p.state.Success() {
		t.Fatalf("the worker exited with %v once its command ended, want status 0", p.state)
	}
	if got := c.listWorker(t, "worker"); got.State != "active" || got.Sessions != 0 {
		t.Fatalf("after the worker exited it is listed %+v, want its credential active and no session", got)
	}
	if s := c.runState(t, queued.RunID); s != "queued" {
		t.Fatalf("the Run queued while the worker stopped is %s, want still queued", s)
	}
	for _, a := range c.attempts(t, queued.RunID) {
		if a.Worker != "" {
			t.Fatalf("the Run queued while the worker stopped has an attempt (%s) granted to worker %q, want none granted", a.State, a.Worker)
		}
	}
}
