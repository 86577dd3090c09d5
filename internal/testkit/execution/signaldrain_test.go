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

// stoppingWorker is a worker whose only slot runs a held command, at the
// default 30 s run lease and a ten-minute stop timeout, sent SIGTERM: it
// takes no new work and drains that command for up to ten minutes.
type stoppingWorker struct {
	c       *cluster
	r       *replica
	p       *proc
	running string
	termAt  time.Time
}

// startStoppingWorker starts a stoppingWorker in a project named name
// (tasks sleep, held, and quick) and returns just after its SIGTERM.
func startStoppingWorker(t *testing.T, name string) stoppingWorker {
	t.Helper()
	s := stoppingWorker{c: newCluster(t, 30*time.Second)}
	c := s.c
	c.apply(t, project(name, c.out(), map[string]string{"sleep": holdScript + "\ntimeout: 30m", "quick": "command: [\"/bin/true\"]"}))
	c.hold(t)
	s.r = c.startReplica(t, "replica", "", "")
	r := s.r
	w := c.newWorker(t, "worker", 4)
	s.p = c.startWorker(t, w, r.workerURL(), 1, "--stop-timeout", "10m")
	s.running = c.fire(t, "sleep")
	c.awaitRun(t, s.running, 20*time.Second, "running")
	c.awaitPid(t, c.attempts(t, s.running)[0].ID)
	if got := c.listWorker(t, "worker"); got.State != "active" || got.DrainedBy != "" || got.Sessions != 1 {
		t.Fatalf("before its SIGTERM the worker is listed %+v, want active with one session", got)
	}
	s.termAt = time.Now()
	if err := s.p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return s
}

// finish lets the held command end and checks that the worker, still
// draining it, then exits 0 and is no longer listed live.
func (s stoppingWorker) finish(t *testing.T) {
	t.Helper()
	c := s.c
	if s.p.exited() {
		t.Fatalf("the worker exited (%v) with its command still running, before its stop timeout", s.p.state)
	}
	c.release(t)
	c.awaitRun(t, s.running, 20*time.Second, "succeeded")
	s.p.wait(t)
	if !s.p.state.Success() {
		t.Fatalf("the worker exited with %v once its command ended, want status 0", s.p.state)
	}
	if got := c.listWorker(t, "worker"); got.State != "active" || got.Sessions != 0 {
		t.Fatalf("after the worker exited it is listed %+v, want its credential active and no session", got)
	}
}

// holdsWithin polls cond until it holds or within passes, and says which.
func holdsWithin(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

// A worker stopping on SIGTERM while its only slot runs a long command
// drains it for up to its stop timeout (ten minutes here): within moments
// of the signal `ql workers list` shows it draining by its own stop, with
// no free slot, where it used to show it active with free slots until it
// exited. Once its command ends it exits 0 and is no longer listed live.
func TestAWorkerStoppingOnSIGTERMIsListedDrainingWithinMomentsNotOnlyOnceItExits(t *testing.T) {
	t.Parallel()
	s := startStoppingWorker(t, "sigdrainlist")
	var listed listedWorker
	seen := holdsWithin(10*time.Second, func() bool {
		listed = s.c.listWorker(t, "worker")
		return listed.State == "draining"
	})
	took := time.Since(s.termAt)
	if !seen {
		t.Fatalf("the worker is listed %+v %s after its SIGTERM, its command still draining; want draining within %s", listed, took, stoppingListedWithin)
	}
	t.Logf("the worker stopping on SIGTERM was listed draining %s after the signal", took)
	if took >= stoppingListedWithin {
		t.Fatalf("the worker was listed draining %s after its SIGTERM, want within %s", took, stoppingListedWithin)
	}
	if listed.DrainedBy != "worker" || listed.Sessions != 1 || listed.FreeSlots != 0 {
		t.Fatalf("the stopping worker is listed %+v, want draining by the worker itself, its one session, no free slot", listed)
	}
	s.finish(t)
}

// A Run queued (`ql triggers run`) while the only worker stops on SIGTERM
// and drains its command says why it waits — every worker drains — on
// stderr and in `ql runs show`, where it used to say nothing until the
// worker exited; the stopping worker never takes it.
func TestARunQueuedWhileTheOnlyWorkerStopsOnSIGTERMSaysEveryWorkerDrains(t *testing.T) {
	t.Parallel()
	s := startStoppingWorker(t, "sigdrainrun")
	c := s.c
	s.p.awaitLog(t, "worker_draining", 1, 5*time.Second)
	// The session is recorded draining moments after the signal; the Run
	// is queued once it is, or after the bound the list is held to.
	holdsWithin(stoppingListedWithin, func() bool {
		return c.env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions WHERE state = 'draining'`) == 1
	})

	runtimeURL := []string{"QL_DATABASE_URL=" + c.env.URL(pgstore.RoleRuntime)}
	code, out, note := c.qlStreams(t, runtimeURL, "triggers", "run", "sigdrainrun/quick", "-o", "json")
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

	s.finish(t)
	if st := c.runState(t, queued.RunID); st != "queued" {
		t.Fatalf("the Run queued while the worker stopped is %s, want still queued", st)
	}
	for _, a := range c.attempts(t, queued.RunID) {
		if a.Worker != "" {
			t.Fatalf("the Run queued while the worker stopped has an attempt (%s) granted to worker %q, want none granted", a.State, a.Worker)
		}
	}
}
