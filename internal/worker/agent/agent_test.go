package agent

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // reads the journal a killed worker left

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

type syncBuffer = syncbuf.Buffer

// running is an in-process worker.
type running struct {
	logs *syncBuffer
	stop func() (Summary, error)
	// exited closes when Run returned by itself or after stop.
	exited <-chan struct{}
}

// runAgent starts a worker against in; mod adjusts its configuration.
func runAgent(t *testing.T, in *ingress, mod func(*Config)) running {
	t.Helper()
	logs := &syncBuffer{}
	cfg := Config{Server: in.srv.URL, Credential: in.credential, DataDir: t.TempDir(), Concurrency: 2, StopTimeout: 5 * time.Second,
		PullWait: 200 * time.Millisecond, BaseEnv: []string{"PATH=/usr/bin:/bin"}, Logger: slog.New(slog.NewJSONHandler(logs, nil))}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		s   Summary
		err error
	}
	done := make(chan result, 1)
	exited := make(chan struct{})
	go func() {
		s, err := Run(ctx, cfg)
		done <- result{s, err}
		close(exited)
	}()
	var once sync.Once
	var res result
	stop := func() (Summary, error) {
		once.Do(func() {
			cancel()
			res = <-done
		})
		return res.s, res.err
	}
	t.Cleanup(func() { _, _ = stop() })
	return running{logs: logs, stop: stop, exited: exited}
}

// processGone reports whether pid no longer runs (absent, or a zombie).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// readPid waits for a command to write its pid to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "the command to write "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	return pid
}

// A command on a worker sees what it would see under the local executor:
// its run and attempt ids, its task's variables, a fresh private working
// directory of its own.
func TestACommandSeesTheSameEnvironmentAsUnderTheLocalExecutor(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	c := shell(`echo "$QL_RUN_ID $QL_ATTEMPT_ID $GREETING"; pwd; stat -c %a .; ls -A | wc -l`)
	c.Env = []task.EnvVar{{Name: "GREETING", Value: "hello"}}
	g := in.enqueue(t, c)
	runAgent(t, in, nil)
	done := in.completed(g.AttemptID)
	log := string(in.attempt(g.AttemptID).log)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || len(lines) != 4 {
		t.Fatalf("completion %+v, log %q", done, log)
	}
	if lines[0] != g.RunID+" "+g.AttemptID+" hello" || !strings.Contains(filepath.Base(lines[1]), g.AttemptID) || lines[2] != "700" || strings.TrimSpace(lines[3]) != "0" {
		t.Fatalf("log %q; want the attempt's identity and variables, in an empty 0700 directory of its own", log)
	}
}

// A command on a worker is told which occurrence its Run is for, what
// fired and how the Run was made, in the variables the local executor
// gives (run.Identity), from its grant.
func TestACommandIsToldItsOccurrenceAsUnderTheLocalExecutor(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	g := in.enqueue(t, shell(`env | grep '^QL_' | sort`))
	data := t.TempDir()
	runAgent(t, in, func(c *Config) { c.DataDir = data })
	in.completed(g.AttemptID)
	got := strings.Split(strings.TrimSpace(string(in.attempt(g.AttemptID).log)), "\n")
	want := []string{"QL_ATTEMPT_ID=" + g.AttemptID, "QL_ATTEMPT_NUMBER=1", "QL_DUE_AT=2026-03-08T00:00:04.500Z", "QL_DUE_AT_MS=1772928004500",
		"QL_ORIGIN=backfill", "QL_PROJECT=demo", "QL_RUN_ID=" + g.RunID, "QL_SCHEDULED_AT=2026-03-08T00:00:00.000Z",
		"QL_SCHEDULED_AT_MS=1772928000000", "QL_SCRIPTS_DIR=" + filepath.Join(data, "scripts"), "QL_TASK=job", "QL_TRIGGER=nightly"}
	if !slices.Equal(got, want) {
		t.Fatalf("the command's QL_ variables\n got %q\nwant %q", got, want)
	}
}

// A worker killed for real while its command runs leaves a journal whose
// record was written `launching` before the spawn (the command, reading
// the journal as it starts, finds its record launching or already
// running, which only a launching one can become) and `running` with the
// pid after; the restarted worker never spawns it again, ends the
// process group it provably left behind, and reports the attempt under
// the lease its journal holds.
func TestLaunchingIsJournaledBeforeSpawnAndNeverReSpawnedAfterACrash(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 60_000)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	probe := task.Command{Mode: task.ModeArgv, Path: os.Args[0], Args: []string{"-test.run=^$"}, TimeoutMs: time.Hour.Milliseconds(),
		Env: []task.EnvVar{{Name: probeEnv, Value: dir}}}
	g := in.enqueue(t, probe)
	first := startHelper(t, in, data, time.Second)
	pid := readPid(t, filepath.Join(dir, "pid"))
	spawns, _ := os.ReadFile(filepath.Join(dir, "spawns"))
	if s := string(spawns); s != "spawned launching\n" && s != "spawned running\n" {
		t.Fatalf("the command found its journal record as %q; want it written (launching) before the spawn", s)
	}
	waitFor(t, "the running record", func() bool { return readJournal(t, data, g.AttemptID).State == journal.StateRunning })
	if rec := readJournal(t, data, g.AttemptID); rec.Pid != pid || rec.StartedAtMs == 0 {
		t.Fatalf("journal record %+v; want running with pid %d and its start", rec, pid)
	}

	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	if processGone(pid) {
		t.Fatal("the command died with the worker; the crash did not leave it running")
	}

	second := startHelper(t, in, data, time.Second)
	waitFor(t, "the restarted worker to end the orphaned command", func() bool { return processGone(pid) })
	// It reports the attempt once it has registered: stopped before it
	// registers, it never reports it and leaves it to its lease, which is
	// not what this test is about.
	waitFor(t, "the restarted worker to settle the abandoned attempt", func() bool {
		return strings.Contains(second.stderr.String(), `"code":"attempt_abandoned_`)
	})
	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.cmd.Wait(); err != nil {
		t.Fatalf("restarted worker: %v\n%s", err, second.stderr.String())
	}
	if spawns, _ := os.ReadFile(filepath.Join(dir, "spawns")); strings.Count(string(spawns), "spawned") != 1 {
		t.Fatalf("the command was spawned %d times; want once", strings.Count(string(spawns), "spawned"))
	}
	if a := in.attempt(g.AttemptID); a.starts != 1 || a.complete == nil || a.complete.Outcome != workerproto.OutcomeStopped || a.complete.ErrorCode != ErrorCodeStopped {
		t.Fatalf("the replica saw %d starts and completion %+v; want one start, and the restarted worker's report of the attempt as stopped by its worker (lost)", a.starts, a.complete)
	}
	if rec := readJournal(t, data, g.AttemptID); rec.State != journal.StateAbandoned {
		t.Fatalf("journal record after restart %+v; want abandoned", rec)
	}
	if !containsAll(second.stderr.String(), `"code":"attempt_abandoned"`, `"orphan":"ended"`, g.AttemptID) {
		t.Fatalf("the restarted worker did not report the abandoned attempt:\n%s", second.stderr.String())
	}
}

// When renewals fail, the worker kills the command's process group before
// the lease ends on the replica's clock, and reports nothing after; its
// log, while the replica still takes it, ends with the line saying why.
func TestTheLeaseClockKillsTheProcessGroupBeforeTheLeaseEnds(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`sleep 300 & echo $! > %[1]s/child; echo $$ > %[1]s/pid; wait`, dir)))
	w := runAgent(t, in, nil)
	pid := readPid(t, filepath.Join(dir, "pid"))
	child := readPid(t, filepath.Join(dir, "child"))
	waitFor(t, "a renewal", func() bool { return in.attempt(g.AttemptID).version >= 3 })
	in.mu.Lock()
	in.renewDown = true
	in.mu.Unlock()
	leaseEnd := in.attempt(g.AttemptID).leaseEnd
	waitFor(t, "the command to be killed", func() bool { return processGone(pid) && processGone(child) })
	if killed := time.Now(); !killed.Before(leaseEnd) {
		t.Fatalf("the command was killed %s after its lease ended", killed.Sub(leaseEnd))
	}
	time.Sleep(time.Until(leaseEnd) + 500*time.Millisecond)
	if a := in.attempt(g.AttemptID); a.complete != nil || a.late != 0 {
		t.Fatalf("after its lease the worker still reported (completion %v, %d refused requests)", a.complete, a.late)
	}
	// Whether SIGTERM alone ended it before the kill cut the grace short
	// is a race; the line names the cause either way.
	if log := string(in.attempt(g.AttemptID).log); !strings.HasPrefix(log, "[qinglong: the command was stopped: the lease could not be renewed in time (SIGTERM") {
		t.Fatalf("log %q; want the line saying the lease could not be renewed", log)
	}
	s, err := w.stop()
	if err != nil || s.LeaseLost != 1 || s.Completed != 0 {
		t.Fatalf("summary %+v, %v; want one lost lease, nothing completed", s, err)
	}
	if !strings.Contains(w.logs.String(), `"code":"attempt_lease_lost"`) {
		t.Fatalf("no attempt_lease_lost log:\n%s", w.logs.String())
	}
}

// A worker frozen past its lease cannot kill its command in time; once it
// runs again it says so, and how long past its lease the command ran,
// instead of calling it a lease it could not renew, and kills it.
func TestAWorkerFrozenPastItsLeaseSaysOnResumeThatItsCommandOutlivedTheLease(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
	h := startHelper(t, in, filepath.Join(dir, "data"), time.Second)
	pid := readPid(t, filepath.Join(dir, "pid"))
	waitFor(t, "a renewal", func() bool { return in.attempt(g.AttemptID).version >= 2 })
	if err := h.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(in.attempt(g.AttemptID).leaseEnd) + 2*time.Second)
	if processGone(pid) {
		t.Fatal("the command of a frozen worker ended; want it still running, as nothing could stop it")
	}
	if err := h.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the command to be killed on resume", func() bool { return processGone(pid) })
	waitFor(t, "the worker to log that the command outlived its lease", func() bool {
		return strings.Contains(h.stderr.String(), `"code":"attempt_outlived_lease"`)
	})
	if logs := h.stderr.String(); !strings.Contains(logs, `"past_lease_ms":`) || strings.Contains(logs, `"code":"attempt_lease_lost"`) {
		t.Fatalf("want one attempt_outlived_lease line with past_lease_ms, no attempt_lease_lost:\n%s", logs)
	}
	if a := in.attempt(g.AttemptID); a.complete != nil {
		t.Fatalf("the worker completed an attempt whose lease it had lost: %+v", a.complete)
	}
	// The command it killed leaves no working directory behind; the
	// test's cleanup kills the worker, which would leave it if it came
	// before the worker removed it.
	waitFor(t, "the worker to remove the killed command's working directory", func() bool {
		left, err := filepath.Glob(filepath.Join(os.TempDir(), "qinglong-"+g.AttemptID+"-*"))
		return err == nil && len(left) == 0
	})
}

// A stop reply ends a command that ignores SIGTERM: SIGTERM first, SIGKILL
// after its kill grace, then the attempt is completed as stopped.
func TestAStopReplySendsSIGTERMThenSIGKILLAfterTheGrace(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 1500)
	dir := t.TempDir()
	c := shell(fmt.Sprintf(`trap 'echo term >> %[1]s/signals' TERM; echo $$ > %[1]s/pid; while :; do sleep 0.05; done`, dir))
	c.KillGraceMs = 700
	g := in.enqueue(t, c)
	runAgent(t, in, nil)
	pid := readPid(t, filepath.Join(dir, "pid"))
	asked := time.Now()
	in.setStop(g.AttemptID, workerproto.StopCancelled)
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeStopped || done.ErrorCode != workerproto.StopCancelled {
		t.Fatalf("completion %+v; want stopped (cancelled)", done)
	}
	if took := time.Since(asked); took < 700*time.Millisecond {
		t.Fatalf("the command that ignores SIGTERM ended %s after the stop, before its 700ms grace", took)
	}
	if signals, err := os.ReadFile(filepath.Join(dir, "signals")); err != nil || !strings.Contains(string(signals), "term") {
		t.Fatalf("the command never got SIGTERM: %q, %v", signals, err)
	}
	if !processGone(pid) {
		t.Fatal("the command still runs after SIGKILL")
	}
}

// A stop asked of a running command is named by the reply of the worker's
// waiting watch (every slot busy) or pull (a slot free), as a cancel makes
// the replica's do: the worker renews that attempt at once, the renewal
// answers stop, and the command ends within moments at a 30 s run lease —
// not at its next renewal, 10 s later. Against a replica older than that
// field the worker hears the stop at its next renewal, as it always did.
func TestAWorkerRenewsAtOnceAnAttemptItsPullOrWatchSaysWasAskedToStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		concurrency int
		leaseMs     int64
		older       bool
	}{
		{"told by its watch, every slot busy", 1, 30_000, false},
		{"told by its pull, a slot free", 2, 30_000, false},
		{"a replica older than the field", 1, 3_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := newIngress(t, tc.leaseMs)
			in.beforeStop = tc.older
			dir := t.TempDir()
			g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
			runAgent(t, in, func(c *Config) { c.Concurrency = tc.concurrency })
			pid := readPid(t, filepath.Join(dir, "pid"))
			asked := time.Now()
			in.setStop(g.AttemptID, workerproto.StopCancelled)
			done := in.completed(g.AttemptID)
			took := time.Since(asked)
			if done.Outcome != workerproto.OutcomeStopped || done.ErrorCode != workerproto.StopCancelled || !processGone(pid) {
				t.Fatalf("completion %+v (command gone: %v); want the command stopped, cancelled", done, processGone(pid))
			}
			if log := string(in.attempt(g.AttemptID).log); !strings.HasPrefix(log, "[qinglong: the command was stopped: the run was asked to cancel") {
				t.Fatalf("log %q; want the line saying the run was asked to cancel", log)
			}
			renewal := time.Duration(tc.leaseMs) * time.Millisecond / 3
			if !tc.older && took >= renewal/2 {
				t.Fatalf("the command ended %s after the stop was asked, want within moments: its next renewal was up to %s away", took, renewal)
			}
			t.Logf("the command ended %s after the stop was asked", took)
		})
	}
}

// A command the worker ends on a stop reply, on its own timeout or because
// the worker is stopping ends its stored log with a line saying so, sent
// after its output through the offset-ordered log path, in the words a
// standalone server uses.
func TestACommandTheWorkerEndsEndsItsStoredLogWithALineSayingWhy(t *testing.T) {
	t.Parallel()
	const how = " (SIGTERM; it ended within the kill grace of 5s)]\n"
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		in := newIngress(t, 30_000)
		dir := t.TempDir()
		g := in.enqueue(t, shell(fmt.Sprintf(`echo working; echo $$ > %s/pid; sleep 300`, dir)))
		runAgent(t, in, nil)
		readPid(t, filepath.Join(dir, "pid"))
		in.setStop(g.AttemptID, workerproto.StopCancelled)
		in.completed(g.AttemptID)
		if log := string(in.attempt(g.AttemptID).log); log != "working\n[qinglong: the command was stopped: the run was asked to cancel"+how {
			t.Fatalf("log %q; want the output, then the line saying the run was asked to cancel", log)
		}
	})
	t.Run("timed out", func(t *testing.T) {
		t.Parallel()
		in := newIngress(t, 30_000)
		c := shell(`echo working; sleep 300`)
		c.TimeoutMs = 300
		g := in.enqueue(t, c)
		runAgent(t, in, nil)
		in.completed(g.AttemptID)
		if log := string(in.attempt(g.AttemptID).log); log != "working\n[qinglong: the command was stopped: its timeout of 300ms passed"+how {
			t.Fatalf("log %q; want the output, then the line saying its timeout passed", log)
		}
	})
	t.Run("worker stopping", func(t *testing.T) {
		t.Parallel()
		in := newIngress(t, 30_000)
		dir := t.TempDir()
		g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
		a := runAgent(t, in, func(c *Config) { c.StopTimeout = MinStopTimeout })
		readPid(t, filepath.Join(dir, "pid"))
		if _, err := a.stop(); err != nil {
			t.Fatal(err)
		}
		if log := string(in.attempt(g.AttemptID).log); log != "[qinglong: the command was stopped: the worker is stopping"+how {
			t.Fatalf("log %q; want the line saying the worker is stopping", log)
		}
	})
}

// A command killed by a signal is completed naming the signal; a replica
// older than the signal field, which refuses it, gets the completion again
// without it, the message still naming the signal.
func TestASignalIsReportedAndAReplicaOlderThanTheFieldStillGetsTheCompletion(t *testing.T) {
	t.Parallel()
	for _, old := range []bool{false, true} {
		t.Run(fmt.Sprintf("older replica %v", old), func(t *testing.T) {
			t.Parallel()
			in := newIngress(t, 30_000)
			in.beforeSignal = old
			g := in.enqueue(t, shell(`kill -SEGV $$`))
			runAgent(t, in, nil)
			done := in.completed(g.AttemptID)
			want := 11
			if old {
				want = 0
			}
			if done.Outcome != workerproto.OutcomeSignaled || done.Signal != want || done.ErrorMessage != "the command was killed by signal 11 (SIGSEGV)" {
				t.Fatalf("completion %+v; want signaled, signal %d, the message naming SIGSEGV", done, want)
			}
			in.mu.Lock()
			defer in.mu.Unlock()
			if old != (in.refusedSignal == 1) {
				t.Fatalf("%d completions refused for the signal field; want one only from the older replica", in.refusedSignal)
			}
		})
	}
}

// SIGTERM drains a worker: no more pulls, a command that ends within the
// stop timeout completes normally, one that does not is stopped and
// completed, and the worker exits 0.
func TestSIGTERMDrainsRunningCommandsThenExitsZero(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	short := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/short; sleep 1; echo finished`, dir)))
	long := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/long; sleep 300`, dir)))
	h := startHelper(t, in, filepath.Join(dir, "data"), 2*time.Second)
	readPid(t, filepath.Join(dir, "short"))
	longPid := readPid(t, filepath.Join(dir, "long"))
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	in.mu.Lock()
	pulls := len(in.pulls)
	in.mu.Unlock()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("the worker exited with %v after SIGTERM; want 0\n%s", err, h.stderr.String())
	}
	s := in.attempt(short.AttemptID)
	if s.complete == nil || s.complete.Outcome != workerproto.OutcomeExited || string(s.log) != "finished\n" {
		t.Fatalf("short command: completion %+v, log %q; want it finished normally", s.complete, s.log)
	}
	l := in.attempt(long.AttemptID)
	if l.complete == nil || l.complete.Outcome != workerproto.OutcomeStopped || l.complete.ErrorCode != ErrorCodeStopped || !processGone(longPid) {
		t.Fatalf("long command: completion %+v; want stopped after the stop timeout, its process gone", l.complete)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.pulls) > pulls {
		t.Fatalf("the worker pulled %d more times after SIGTERM", len(in.pulls)-pulls)
	}
	if !strings.Contains(h.stderr.String(), `"code":"worker_stopped"`) {
		t.Fatalf("no summary in the worker's log:\n%s", h.stderr.String())
	}
}

// A worker waiting for its commands to end before it exits — stopped by a
// signal, until its stop timeout, or drained, without limit — says every
// so often which Runs it waits for and, stopped, how long until it stops
// them, so a stop that waits hours for a nightly job does not look hung.
func TestAWorkerWaitingForItsCommandsToEndSaysWhichAndUntilWhen(t *testing.T) {
	t.Parallel()
	for _, drained := range []bool{false, true} {
		in := newIngress(t, 30_000)
		dir := t.TempDir()
		g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; exec sleep 60`, dir)))
		w := runAgent(t, in, func(c *Config) { c.StopTimeout = 30 * time.Second; c.drainNoteEvery = 100 * time.Millisecond })
		readPid(t, filepath.Join(dir, "pid"))
		if drained {
			in.mu.Lock()
			in.state = workerproto.SessionDraining
			in.mu.Unlock()
		} else {
			go func() { _, _ = w.stop() }()
		}
		var line map[string]any
		waitFor(t, "a line saying which Run the worker waits for", func() bool {
			for _, l := range strings.Split(w.logs.String(), "\n") {
				if strings.Contains(l, `"code":"worker_drain_waiting"`) {
					return json.Unmarshal([]byte(l), &line) == nil
				}
			}
			return false
		})
		runs, _ := line["runs"].([]any)
		if line["running"] != float64(1) || len(runs) != 1 || runs[0] != g.Project+"/"+g.Task+" "+g.RunID {
			t.Fatalf("drained %v: %v; want the one running Run named with its task", drained, line)
		}
		stopIn, given := line["stop_in_ms"].(float64)
		if drained == given || (!drained && (stopIn <= 0 || stopIn > 30_000)) {
			t.Fatalf("drained %v: stop_in_ms %v; want the time left of the 30s stop timeout when stopped by a signal, none when drained", drained, stopIn)
		}
	}
}

// A signal to a worker its session already drains is said, as one before
// the drain is, and bounds the wait by the stop timeout: the worker stops
// its command when that runs out and exits, instead of waiting without
// limit and saying nothing.
func TestASignalToADrainedWorkerIsSaidAndBoundsItsWait(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; exec sleep 60`, dir)))
	w := runAgent(t, in, func(c *Config) { c.StopTimeout = time.Second })
	pid := readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionDraining
	in.mu.Unlock()
	waitFor(t, "the worker to say its session drains", func() bool { return strings.Contains(w.logs.String(), `"reason":"session"`) })
	go func() { _, _ = w.stop() }()
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the drained worker kept waiting for its command after a signal and its 1s stop timeout")
	}
	if !strings.Contains(w.logs.String(), `"code":"worker_draining","reason":"signal"`) {
		t.Fatalf("the signal to the drained worker was not said:\n%s", w.logs.String())
	}
	if a := in.attempt(g.AttemptID); a.complete == nil || a.complete.Outcome != workerproto.OutcomeStopped || !processGone(pid) {
		t.Fatalf("completion %+v; want the command stopped at the stop timeout, its process gone", a.complete)
	}
}

// A worker started while an admin has it drained exits 4 naming itself
// in the command that returns it to service, so the operator can run it
// as it is shown.
func TestAWorkerStartedWhileDrainedNamesItselfInTheResumeCommand(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	in.state = workerproto.SessionDraining
	w := runAgent(t, in, nil)
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the worker started while drained did not exit")
	}
	_, err := w.stop()
	if qlerror.CodeOf(err) != qlerror.Conflict || !strings.Contains(err.Error(), "`ql workers resume w1`") {
		t.Fatalf("stopped with %v; want a conflict (exit 4) naming `ql workers resume w1`", err)
	}
	if !strings.Contains(w.logs.String(), "`ql workers resume w1`") {
		t.Fatalf("the worker_drained line does not name the worker:\n%s", w.logs.String())
	}
}

// An attempt a worker stopped because it was itself stopped (SIGTERM)
// carries a message saying so, as a lease that ran out does: the replica
// records it with the lost attempt.
func TestAnAttemptStoppedByItsWorkersSIGTERMSaysSoInItsMessage(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
	h := startHelper(t, in, filepath.Join(dir, "data"), time.Second)
	readPid(t, filepath.Join(dir, "pid"))
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("the worker exited with %v after SIGTERM; want 0\n%s", err, h.stderr.String())
	}
	done := in.completed(g.AttemptID)
	if done.ErrorCode != ErrorCodeStopped || !strings.HasPrefix(done.ErrorMessage, "the worker was stopped (SIGTERM) before the command ended") {
		t.Fatalf("completion %+v; want %s with a message naming the worker's SIGTERM", done, ErrorCodeStopped)
	}
}

// A pull whose reply is lost is sent again with the same offer id and
// token, and gets the grant made the first time — never a second one.
func TestARetriedPullAfterALostReplyReusesItsOfferAndGetsTheSameGrant(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	in.dropPulls = 1
	g := in.enqueue(t, shell(`echo once`))
	in.enqueue(t, shell(`echo other`)) // would be a second grant if the retry were a new pull
	runAgent(t, in, func(c *Config) { c.Concurrency = 1 })
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited {
		t.Fatalf("completion %+v", done)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	var offer string
	sends := 0
	for id, o := range in.offers {
		if len(o.grants) == 1 && o.grants[0].AttemptID == g.AttemptID {
			offer = id
		}
	}
	for _, p := range in.pulls {
		if p.OfferID == offer {
			sends++
			if p.Token != in.offers[offer].token {
				t.Fatalf("the retried pull carried another token")
			}
		}
	}
	if dropped := in.dropPulls; dropped != 0 || sends < 2 {
		t.Fatalf("offer %s was sent %d times (lost replies left: %d); the fault did not happen or the pull was not retried", offer, sends, dropped)
	}
	if a := in.attempts[g.AttemptID]; a.starts != 1 {
		t.Fatalf("the grant was started %d times; want once", a.starts)
	}
}

// A credential file other accounts can read is refused with what to do.
func TestACredentialFileReadableByOthersIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "credential")
	if err := os.WriteFile(path, []byte(testCredential+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cred, err := ReadCredential(path); err != nil || cred != testCredential {
		t.Fatalf("an owner-only file: %q, %v", cred, err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	_, err := ReadCredential(path)
	if err == nil || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Fatalf("a group-readable credential file: %v; want a refusal saying chmod 600", err)
	}
	if strings.Contains(err.Error(), testCredential) {
		t.Fatalf("the refusal shows the credential: %v", err)
	}
}

// Output goes out in chunks no larger than the limit, each at the offset
// the replica holds, in order, with secret values masked; neither the
// secret nor the credential nor the lease token reaches the worker's log.
func TestLogChunksAreOffsetOrderedAndRedacted(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	const secret = "v3ry-s3cret-value"
	secrets := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"api-token": "`+secret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := shell(`head -c 400000 /dev/zero | tr '\0' a; echo "token=$API_TOKEN"; head -c 400000 /dev/zero | tr '\0' b; echo "end $API_TOKEN"`)
	c.Env = []task.EnvVar{{Name: "API_TOKEN", SecretRef: "api-token"}}
	g := in.enqueue(t, c)
	w := runAgent(t, in, func(c *Config) { c.SecretsFile = secrets })
	done := in.completed(g.AttemptID)
	a := in.attempt(g.AttemptID)
	want := strings.Repeat("a", 400000) + "token=***\n" + strings.Repeat("b", 400000) + "end ***\n"
	if done.Outcome != workerproto.OutcomeExited || string(a.log) != want || done.LogBytes != int64(len(want)) {
		t.Fatalf("completion %+v; log of %d bytes (want %d), masked: %v", done, len(a.log), len(want), strings.Contains(string(a.log), "token=***"))
	}
	if len(a.offsets) < 4 || a.offsets[0] != 0 {
		t.Fatalf("offsets %v; want at least four chunks from 0", a.offsets)
	}
	for i := 1; i < len(a.offsets); i++ {
		if size := a.offsets[i] - a.offsets[i-1]; size <= 0 || size > workerproto.MaxLogChunk {
			t.Fatalf("chunk %d: offsets %v; want ascending chunks of at most %d bytes", i, a.offsets, workerproto.MaxLogChunk)
		}
	}
	if _, err := w.stop(); err != nil {
		t.Fatal(err)
	}
	logs := w.logs.String()
	for _, leak := range []string{secret, testCredential} {
		if strings.Contains(logs, leak) {
			t.Fatalf("the worker's log holds %q", leak)
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, o := range in.offers {
		if strings.Contains(logs, o.token) {
			t.Fatal("the worker's log holds a lease token")
		}
	}
}

// helper is a worker process started from this test binary.
type helper struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
}

func startHelper(t *testing.T, in *ingress, dataDir string, stopTimeout time.Duration) *helper {
	t.Helper()
	cred := filepath.Join(t.TempDir(), "credential")
	if err := os.WriteFile(cred, []byte(in.credential), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: exec.Command(os.Args[0], "-test.run=^$"), stderr: &syncBuffer{}}
	h.cmd.Env = append(os.Environ(), helperEnv+"=1", "QL_AGENT_TEST_SERVER="+in.srv.URL, "QL_AGENT_TEST_CREDENTIAL_FILE="+cred,
		"QL_AGENT_TEST_DATA_DIR="+dataDir, "QL_AGENT_TEST_STOP_TIMEOUT="+stopTimeout.String())
	h.cmd.Stderr = h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			_ = h.cmd.Wait()
		}
	})
	return h
}

// readJournal reads one attempt's record from a journal file directly.
func readJournal(t *testing.T, dataDir, attemptID string) journal.Attempt {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, journal.FileName)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var a journal.Attempt
	err = db.QueryRow(`SELECT attempt_id, state, pid, started_at_ms FROM attempts WHERE attempt_id = ?`, attemptID).Scan(&a.ID, &a.State, &a.Pid, &a.StartedAtMs)
	if errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("the journal holds no record of attempt %s", attemptID)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// An operator's drain reaches the worker on a reply: it stops pulling, lets
// its command finish and exits by itself, without error.
func TestADrainingSessionStopsPullingAndExitsWhenIdle(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 0.5; echo finished`, dir)))
	w := runAgent(t, in, nil)
	readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionDraining
	in.mu.Unlock()
	later := in.enqueue(t, shell(`echo must not run`))
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the drained worker did not exit once idle")
	}
	s, err := w.stop()
	if err != nil || s.Completed != 1 {
		t.Fatalf("summary %+v, %v; want one completed attempt and no error", s, err)
	}
	if a := in.attempt(g.AttemptID); a.complete == nil || a.complete.Outcome != workerproto.OutcomeExited || string(a.log) != "finished\n" {
		t.Fatalf("the running command did not finish normally: %+v, log %q", a.complete, a.log)
	}
	if a := in.attempt(later.AttemptID); a.starts != 0 {
		t.Fatal("the draining worker started a Run queued after the drain")
	}
}

// A worker that stops cleanly ends its session, so the cluster stops
// counting it live at once; a replica older than that request answers it
// not_found, and the worker still exits 0.
func TestAWorkerThatStopsCleanlyEndsItsSessionAndToleratesAReplicaOlderThanTheRequest(t *testing.T) {
	t.Parallel()
	for _, older := range []bool{false, true} {
		in := newIngress(t, 30_000)
		in.beforeEnd = older
		w := runAgent(t, in, nil)
		// The worker's own log line, not the ingress's count: a stop
		// arriving while the register reply is still in flight leaves the
		// worker without a session to end (it expires with its lease).
		waitFor(t, "the worker to register", func() bool {
			return strings.Contains(w.logs.String(), `"code":"worker_registered"`)
		})
		if _, err := w.stop(); err != nil {
			t.Fatalf("older replica %v: the worker stopped with %v", older, err)
		}
		in.mu.Lock()
		ended := in.ended
		in.mu.Unlock()
		switch {
		case !older && ended != 1:
			t.Fatalf("the worker ended %d sessions at its stop, want 1\n%s", ended, w.logs)
		case older && !strings.Contains(w.logs.String(), `"code":"session_end_unknown"`):
			t.Fatalf("a replica older than the end request: the worker did not say the session expires with its lease\n%s", w.logs)
		}
	}
}

// A newer session of the same credential replaces this worker: it kills
// its commands, reports nothing more for them, counts them in its summary
// and stops with an error saying to run one worker per credential.
func TestAReplacedWorkerKillsItsCommandsAndStops(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
	w := runAgent(t, in, nil)
	pid := readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionReplaced
	in.mu.Unlock()
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the replaced worker did not stop")
	}
	s, err := w.stop()
	if !errors.Is(err, ErrReplaced) {
		t.Fatalf("the replaced worker stopped with %v; want ErrReplaced", err)
	}
	if s.Killed != 1 {
		t.Fatalf("the replaced worker's summary counts %d killed commands, want 1: %+v", s.Killed, s)
	}
	if !processGone(pid) {
		t.Fatal("the replaced worker left its command running")
	}
	if a := in.attempt(g.AttemptID); a.complete != nil {
		t.Fatalf("the replaced worker still completed its attempt: %+v", a.complete)
	}
}

// A worker given several servers goes on through the next one when a
// server fails on the network: here the first address refuses every
// connection, and the worker registers, runs and completes through the
// second.
func TestAWorkerWithSeveralServersFailsOverToTheNextOne(t *testing.T) {
	t.Parallel()
	dead := deadServer(t)
	in := newIngress(t, 30_000)
	g := in.enqueue(t, shell(`echo hi`))
	w := runAgent(t, in, func(c *Config) { c.Server = dead + " , " + in.srv.URL })
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 {
		t.Fatalf("completion %+v through the second server", done)
	}
	if !strings.Contains(w.logs.String(), dead) {
		t.Fatalf("the worker's start log does not name both servers:\n%s", w.logs)
	}
}

// A replica that froze (it accepts requests and never answers) is left
// in time for the renewal to reach the next one, even at the shortest
// lease: once a send of a lease-bound request has had its share of what
// is left of the lease, the next goes out, not after a fixed timeout
// longer than the whole lease.
func TestAWorkerWithTwoReplicasRenewsThroughTheSecondWhenTheFirstHangsAtTheShortestLease(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 6; echo done`, dir)))
	target, err := url.Parse(in.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := quietProxy(target)
	var frozen atomic.Bool
	var hungRenewals atomic.Int32
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !frozen.Load() {
			proxy.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == workerproto.PathRenew {
			hungRenewals.Add(1)
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hung.Close)
	// Before Close, which waits for the handlers still holding requests.
	t.Cleanup(func() { close(release) })
	w := runAgent(t, in, func(c *Config) { c.Server = hung.URL + "," + in.srv.URL })
	readPid(t, filepath.Join(dir, "pid"))
	frozen.Store(true)
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || string(in.attempt(g.AttemptID).log) != "done\n" {
		t.Fatalf("completion %+v, log %q; want the command run to its end\n%s", done, in.attempt(g.AttemptID).log, w.logs)
	}
	if hungRenewals.Load() == 0 || strings.Contains(w.logs.String(), "attempt_lease_lost") {
		t.Fatalf("%d renewals sent to the hung replica; the worker's log:\n%s", hungRenewals.Load(), w.logs)
	}
}

// A --server nobody answers is reported (with the network's reason) by
// the first registration's shorter bound, not after the full one: an
// operator who mistyped the address learns it within seconds.
func TestAnUnreachableServerIsReportedBeforeTheFullRegistrationBound(t *testing.T) {
	t.Parallel()
	dead := deadServer(t)
	in := newIngress(t, 30_000)
	start := time.Now()
	w := runAgent(t, in, func(c *Config) { c.Server = dead })
	for !strings.Contains(w.logs.String(), "register_failed") {
		if time.Since(start) >= registerTimeout {
			t.Fatalf("nothing said about the unreachable server after %v:\n%s", registerTimeout, w.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(w.logs.String(), "connection refused") {
		t.Fatalf("the warning does not give the network's reason:\n%s", w.logs)
	}
}

// A worker whose --server has nothing listening says so at its first
// failed registration — what is wrong, what to check and the address it
// tried — and then not at every try: it keeps trying, with pauses that
// grow, and registers once a replica listens there, saying how many tries
// failed before.
func TestAWorkerThatCannotRegisterSaysWhatToCheckOnceNotAtEveryTry(t *testing.T) {
	t.Parallel()
	// A socket bound but not listening: connections to its port are
	// refused, and no other test can take the port meanwhile.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sock := os.NewFile(uintptr(fd), "ingress socket")
	t.Cleanup(func() { _ = sock.Close() })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	bound, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", bound.(*syscall.SockaddrInet4).Port)
	in := newIngress(t, 30_000)
	w := runAgent(t, in, func(c *Config) {
		c.Server = "http://" + addr
		// A try retries refused connections until its bound, so the bound
		// is short enough for several tries before the socket listens,
		// and long enough that a loaded machine still dials once within
		// it (cut before its first dial, a try is told as no answer).
		c.registerTry, c.registerRetry, c.registerRepeat = 250*time.Millisecond, 20*time.Millisecond, time.Hour
	})
	waitFor(t, "a failed registration", func() bool { return strings.Contains(w.logs.String(), "register_failed") })
	// Long enough for two tries of 250 and 500 ms and their pauses.
	time.Sleep(1500 * time.Millisecond)
	if err := syscall.Listen(fd, 16); err != nil {
		t.Fatal(err)
	}
	later, err := net.FileListener(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: in.srv.Config.Handler, ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(later) }()
	t.Cleanup(func() { _ = srv.Close() })
	waitFor(t, "the registration once a replica listens", func() bool { return strings.Contains(w.logs.String(), "worker_registered") })

	var failures []string
	tries := 0
	for _, line := range strings.Split(strings.TrimSpace(w.logs.String()), "\n") {
		var entry struct {
			Code        string `json:"code"`
			FailedTries int    `json:"failed_tries"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch entry.Code {
		case "register_failed":
			failures = append(failures, line)
		case "worker_registered":
			tries = entry.FailedTries
		}
	}
	if len(failures) != 1 || tries < 2 {
		t.Fatalf("%d register_failed lines for %d failed tries; want one, said at the first of several:\n%s", len(failures), tries, w.logs)
	}
	if !containsAll(failures[0], "nothing listens at the address tried", "check that --server", addr, "connection refused") {
		t.Fatalf("the failed registration does not say what is wrong, what to check and the address tried:\n%s", failures[0])
	}
}

// A --server written http:// for a replica whose ingress serves HTTPS is
// told as that, the scheme to change, not as an address that is no worker
// ingress (a port to change).
func TestAnHTTPServerURLForAnHTTPSIngressSaysToWriteHTTPS(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	tlsIngress := httptest.NewTLSServer(in.srv.Config.Handler)
	t.Cleanup(tlsIngress.Close)
	w := runAgent(t, in, func(c *Config) {
		c.Server = "http://" + strings.TrimPrefix(tlsIngress.URL, "https://")
		// The try keeps its default bound: the hint tells what the
		// address answered, and a try cut short before the answer
		// comes (a bound of milliseconds on a loaded machine) is told
		// as no answer in time.
		c.registerRetry, c.registerRepeat = 20*time.Millisecond, time.Hour
	})
	waitFor(t, "a failed registration", func() bool { return strings.Contains(w.logs.String(), `"code":"register_failed"`) })
	for _, line := range strings.Split(w.logs.String(), "\n") {
		if strings.Contains(line, `"code":"register_failed"`) || strings.Contains(line, `"code":"server_not_ingress"`) {
			if !strings.Contains(line, "https://") || strings.Contains(line, "--http-addr") {
				t.Fatalf("the line does not say to write https:// (or sends the operator to the API port):\n%s", line)
			}
		}
	}
}

// A --server written https:// for a replica whose ingress serves plain
// HTTP is told as that: the scheme to change or the TLS to give the
// replica, not the generic check of the address.
func TestAnHTTPSServerURLForAPlainHTTPIngressSaysToWriteHTTPOrServeTLS(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	w := runAgent(t, in, func(c *Config) {
		c.Server = "https://" + strings.TrimPrefix(in.srv.URL, "http://")
		// The try keeps its default bound: the hint tells what the
		// address answered, and a try cut short before the answer
		// comes (a bound of milliseconds on a loaded machine) is told
		// as no answer in time.
		c.registerRetry, c.registerRepeat = 20*time.Millisecond, time.Hour
	})
	waitFor(t, "a failed registration", func() bool { return strings.Contains(w.logs.String(), `"code":"register_failed"`) })
	for _, line := range strings.Split(w.logs.String(), "\n") {
		if strings.Contains(line, `"code":"register_failed"`) && (!strings.Contains(line, "serves plain HTTP") || !strings.Contains(line, "--worker-tls-cert")) {
			t.Fatalf("the line does not say the address serves plain HTTP and what to change:\n%s", line)
		}
	}
}

// An https:// --server naming a replica's API port on loopback (plain
// HTTP) by mistake is told as the API port, with the port the worker
// ingress listens on by default, not only as a scheme to change.
func TestAnHTTPSServerURLAnsweredInPlainHTTPNamesTheAPIPortAndTheIngressPort(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	api := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(api.Close)
	w := runAgent(t, in, func(c *Config) {
		c.Server = "https://" + strings.TrimPrefix(api.URL, "http://")
		// The try keeps its default bound: the hint tells what the
		// address answered, and a try cut short before the answer
		// comes (a bound of milliseconds on a loaded machine) is told
		// as no answer in time.
		c.registerRetry, c.registerRepeat = 20*time.Millisecond, time.Hour
	})
	waitFor(t, "a failed registration", func() bool { return strings.Contains(w.logs.String(), `"code":"register_failed"`) })
	for _, line := range strings.Split(w.logs.String(), "\n") {
		if strings.Contains(line, `"code":"register_failed"`) && !containsAll(line, "API port", "--http-addr", "--worker-addr, 8081 by default") {
			t.Fatalf("the line does not say the address may be the API port and which port the ingress listens on:\n%s", line)
		}
	}
}

// A pull that a replica held in its long-poll and then dropped (it died)
// is sent again to the next replica, and the grant it gets there counts
// its lease from that second send: counted from the first, the lease
// would be spent before the command could start, and the Run would wait a
// whole lease for its grant to expire and be offered again.
func TestAPullSentAgainToAnotherReplicaCountsItsLeaseFromTheSecondSend(t *testing.T) {
	t.Parallel()
	const leaseMs = 3_000
	in := newIngress(t, leaseMs)
	g := in.enqueue(t, shell(`echo hi`))
	target, err := url.Parse(in.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := quietProxy(target)
	// Held past where a copy of the lease counted from the first send
	// would end (its length less the kill margin of a sixth).
	hold := time.Duration(leaseMs) * time.Millisecond * 9 / 10
	var held atomic.Bool
	dying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != workerproto.PathPull || held.Swap(true) {
			proxy.ServeHTTP(w, r)
			return
		}
		time.Sleep(hold)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
	}))
	t.Cleanup(dying.Close)
	w := runAgent(t, in, func(c *Config) { c.Server = dying.URL + "," + in.srv.URL })
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 {
		t.Fatalf("completion %+v; want the grant of the second send started and run", done)
	}
	if !held.Load() || strings.Contains(w.logs.String(), "start_failed") {
		t.Fatalf("held a pull: %t; the worker's log:\n%s", held.Load(), w.logs)
	}
}

// A server list with one bad URL is refused as a whole, naming it.
func TestAServerListWithABadURLIsRefused(t *testing.T) {
	t.Parallel()
	_, err := NewClient("http://127.0.0.1:1,http://replica.example:8081", testCredential, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "replica.example") {
		t.Fatalf("NewClient with a plain-http non-loopback second server: %v", err)
	}
}

// A session that expired (a partition longer than its lease) is replaced
// by registering again, without touching running commands: their leases
// belong to the worker, not to the session.
func TestAnExpiredSessionRegistersAgainAndKeepsItsCommands(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 1; echo finished`, dir)))
	runAgent(t, in, nil)
	readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionExpired
	in.mu.Unlock()
	waitFor(t, "a new registration", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.registers == 2 && in.state == workerproto.SessionActive
	})
	if done := in.completed(g.AttemptID); done.Outcome != workerproto.OutcomeExited || string(in.attempt(g.AttemptID).log) != "finished\n" {
		t.Fatalf("the running command was disturbed by the new session: %+v", done)
	}
	later := in.enqueue(t, shell(`echo after`))
	if done := in.completed(later.AttemptID); done.Outcome != workerproto.OutcomeExited {
		t.Fatalf("the new session runs nothing: %+v", done)
	}
}

// The command's own timeout runs on the worker too, as a backstop for the
// replica's: the command is ended and the attempt completed as timed out.
func TestTheCommandsOwnTimeoutIsABackstopOnTheWorker(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	c := shell(`sleep 300`)
	c.TimeoutMs = 300
	g := in.enqueue(t, c)
	runAgent(t, in, nil)
	if done := in.completed(g.AttemptID); done.Outcome != workerproto.OutcomeStopped || done.ErrorCode != workerproto.StopTimedOut {
		t.Fatalf("completion %+v; want stopped (timed_out)", done)
	}
}

// A secret the worker cannot resolve fails the attempt before anything is
// spawned, with the reason in the attempt's log and never a value; a
// worker started without --secrets-file says how to write one and that
// the worker must be started again to read it.
func TestAnUnresolvableSecretFailsTheAttemptWithoutSpawning(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	c := shell(fmt.Sprintf(`touch %s/spawned`, dir))
	c.Env = []task.EnvVar{{Name: "API_TOKEN", SecretRef: "api-token"}}
	g := in.enqueue(t, c)
	runAgent(t, in, nil)
	done := in.completed(g.AttemptID)
	log := string(in.attempt(g.AttemptID).log)
	fix := "on the host of worker w1, set it with `ql-worker secrets set api-token --secrets-file FILE` and start the worker again with --secrets-file FILE"
	if done.Outcome != workerproto.OutcomeSpawnFailed || done.ErrorCode != ErrorCodeSecret || !strings.Contains(log, `secret "api-token"`) || !strings.Contains(log, fix) {
		t.Fatalf("completion %+v, log %q; want spawn_failed naming the secret and saying %q", done, log, fix)
	}
	if _, err := os.Stat(filepath.Join(dir, "spawned")); err == nil {
		t.Fatal("the command ran without its secret")
	}
}

// A refused credential stops the worker at once with what to do.
func TestARefusedCredentialStopsTheWorker(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	w := runAgent(t, in, func(c *Config) { c.Credential = workerproto.CredentialPrefix + "revoked" })
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the worker kept going with a refused credential")
	}
	if _, err := w.stop(); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "ql workers create") {
		t.Fatalf("stopped with %v; want ErrUnauthenticated saying what to do", err)
	}
}

// A worker revoked while it drains stops as a revoked one does, with
// exit 5's error and the line saying its credential was refused, not as a
// drained one that exits 0. Draining, it pulls no more, and the replica
// here is older than the draining watch, so the first request to hear of
// the revocation is its running attempt's renewal.
func TestAWorkerRevokedWhileItDrainsStopsAsRevoked(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	in.beforeDrainWatch = true
	dir := t.TempDir()
	in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; exec sleep 60`, dir)))
	w := runAgent(t, in, nil)
	pid := readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionDraining
	in.mu.Unlock()
	waitFor(t, "the worker to say it drains", func() bool { return strings.Contains(w.logs.String(), `"code":"worker_draining"`) })
	in.mu.Lock()
	in.revoked = true
	in.mu.Unlock()
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the draining worker kept its command after its credential was revoked")
	}
	if _, err := w.stop(); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("stopped with %v; want ErrUnauthenticated (exit 5), not a drained worker's clean exit", err)
	}
	if !strings.Contains(w.logs.String(), `"code":"credential_refused"`) {
		t.Fatalf("no credential_refused line:\n%s", w.logs.String())
	}
	waitFor(t, "the command to be killed", func() bool { return processGone(pid) })
}

// quietProxy forwards to target and prints nothing of a request it could
// not forward: the worker cancels the sends of a start or renewal still
// open once one of them is answered, each of which the proxy would print
// as an error though none is.
func quietProxy(target *url.URL) *httputil.ReverseProxy {
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	return proxy
}

// deadServer returns the URL of a local address whose connections are
// refused at once, for the whole test (freeport.Refused).
func deadServer(t *testing.T) string {
	t.Helper()
	return "http://" + freeport.Refused(t)
}

// A routine stop logs no error: a pull the drain cut short before its
// offer was journaled offered nothing, so there is nothing to report
// (operators alert on errors, and a rolling restart is not one). Stopped
// at once after registering, a worker's drain often lands while a pull is
// about to journal its offer, so the stop is repeated.
func TestAStopCuttingShortAPullLogsNoError(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	for i := range 20 {
		w := runAgent(t, in, func(c *Config) { c.PullWait = time.Millisecond })
		waitFor(t, "the worker to register", func() bool {
			return strings.Contains(w.logs.String(), `"code":"worker_registered"`)
		})
		if _, err := w.stop(); err != nil {
			t.Fatalf("stop %d: %v\n%s", i, err, w.logs)
		}
		if strings.Contains(w.logs.String(), `"level":"ERROR"`) {
			t.Fatalf("stop %d logged an error:\n%s", i, w.logs)
		}
	}
}

// A worker's stop timeout runs from one second to one day, both bounds
// included: a value outside is refused naming the flag and the range.
func TestTheStopTimeoutRunsFromOneSecondToADay(t *testing.T) {
	t.Parallel()
	cfg := Config{Server: "https://replica.example:8081", Credential: testCredential, DataDir: t.TempDir(), Concurrency: 1}
	for _, d := range []time.Duration{time.Second, DefaultStopTimeout, 24 * time.Hour} {
		cfg.StopTimeout = d
		if err := cfg.Validate(); err != nil {
			t.Errorf("stop timeout %s: %v; want it accepted", d, err)
		}
	}
	for _, d := range []time.Duration{0, time.Second - time.Millisecond, 24*time.Hour + time.Second} {
		cfg.StopTimeout = d
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--stop-timeout") || !strings.Contains(err.Error(), "is outside 1s–24h") {
			t.Errorf("stop timeout %s: %v; want it refused naming --stop-timeout and 1s–24h", d, err)
		}
	}
}

// An answer that is not the worker ingress's own — a replica's API port
// given by mistake, a proxy's error page while the replica behind it
// restarts — says nothing of the Run: the worker sends the request to the
// next --server, as after a network failure, instead of taking it for a
// refusal (never registering, or killing a running command at a renewal).
func TestAWorkerGoesOnThroughTheNextServerWhenOneAnswersAsNoIngress(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	notIngress := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notIngress.Close)
	first := in.enqueue(t, shell(`echo first`))
	w := runAgent(t, in, func(c *Config) { c.Server = notIngress.URL + "," + in.srv.URL })
	if done := in.completed(first.AttemptID); done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 {
		t.Fatalf("completion %+v behind a --server that is no ingress; the worker's log:\n%s", done, w.logs)
	}
	if !strings.Contains(w.logs.String(), "not as a worker ingress") {
		t.Fatalf("the worker's log does not say which address is no ingress:\n%s", w.logs)
	}

	in = newIngress(t, 3_000)
	target, err := url.Parse(in.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := quietProxy(target)
	var down atomic.Bool
	var pages atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !down.Load() {
			proxy.ServeHTTP(w, r)
			return
		}
		pages.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>\n")
	}))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 3; echo done`, dir)))
	w = runAgent(t, in, func(c *Config) { c.Server = front.URL + "," + in.srv.URL })
	readPid(t, filepath.Join(dir, "pid"))
	down.Store(true)
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || string(in.attempt(g.AttemptID).log) != "done\n" {
		t.Fatalf("completion %+v, log %q behind a proxy answering 502; want the command run to its end\n%s", done, in.attempt(g.AttemptID).log, w.logs)
	}
	if pages.Load() == 0 || strings.Contains(w.logs.String(), "attempt_renew_refused") {
		t.Fatalf("%d requests answered by the proxy's error page; the worker's log:\n%s", pages.Load(), w.logs)
	}
}

// A second SIGTERM stops the commands a draining worker still waits for at
// once, instead of at the end of its --stop-timeout (here an hour): each
// is stopped and reported lost with a message saying so, and the worker
// exits 0.
func TestASecondSignalStopsTheCommandsADrainingWorkerWaitsFor(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
	h := startHelper(t, in, filepath.Join(dir, "data"), time.Hour)
	pid := readPid(t, filepath.Join(dir, "pid"))
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the worker to drain", func() bool { return strings.Contains(h.stderr.String(), `"code":"worker_draining"`) })
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- h.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the worker exited with %v after a second SIGTERM; want 0\n%s", err, h.stderr.String())
		}
	case <-time.After(20 * time.Second):
		_ = h.cmd.Process.Kill()
		err := <-exited
		t.Fatalf("the worker still waited for its command 20s after a second SIGTERM (killed: %v)\n%s", err, h.stderr.String())
	}
	done := in.attempt(g.AttemptID).complete
	if done == nil || done.Outcome != workerproto.OutcomeStopped || done.ErrorCode != ErrorCodeStopped || !processGone(pid) ||
		!strings.Contains(done.ErrorMessage, "asked to stop a second time") || !strings.Contains(h.stderr.String(), `"code":"worker_stop_now"`) {
		t.Fatalf("completion %+v; want the command stopped at the second signal and reported so\n%s", done, h.stderr.String())
	}
}

// A log chunk the replica stored but answered too late (the worker gave
// the request up at its deadline) is sent again as it was, which the
// replica takes as a replay, not with the output written since appended to
// it, which the replica refuses (the offset is no longer the bytes held,
// and the bytes are not the stored chunk's): the command was killed for it,
// under load, when a chunk's deadline was the next renewal a few
// milliseconds away.
func TestALogChunkAnsweredTooLateIsSentAgainAsItWasAndTheCommandRunsOn(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; for i in $(seq 1 40); do echo line $i; sleep 0.05; done; echo done`, dir)))
	w := runAgent(t, in, nil)
	readPid(t, filepath.Join(dir, "pid"))
	waitFor(t, "a first chunk", func() bool { return len(in.attempt(g.AttemptID).log) > 0 })
	in.mu.Lock()
	in.holdLogs = true
	in.mu.Unlock()
	time.Sleep(1500 * time.Millisecond)
	in.mu.Lock()
	in.holdLogs = false
	in.mu.Unlock()
	done := in.completed(g.AttemptID)
	var want strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	want.WriteString("done\n")
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || string(in.attempt(g.AttemptID).log) != want.String() {
		t.Fatalf("completion %+v, log %q; want the command run to its end with its whole output once\n%s", done, in.attempt(g.AttemptID).log, w.logs)
	}
}

// A chunk of a command printing all the time is never sent with less than
// a send's least time (minLeaseTry) before its deadline, so a
// replica answering in tens of milliseconds (here 40) is given the time
// to. One sent a few milliseconds before was given up before its answer,
// and said as "no answer from the replica" (server_unreachable), many
// times a minute on a busy worker.
//
// What is measured is the time each send is given: its deadline, read as
// the request leaves the worker. Whether the replica's answer came in time
// is not: on a loaded machine a 40 ms answer takes longer than the 0.2 s a
// send is given. The command prints 20 kB every 0.1 s and the worker
// flushes as often as every 20 ms, so a chunk leaves about every 0.1 s —
// one just before nearly every renewal where the margin is not kept — and
// copying and encoding it between the worker's decision and the send takes
// a small part of the half of minLeaseTry left for it, even on a loaded
// machine.
func TestAChattyCommandsLogIsNeverSentWithTooLittleTimeBeforeARenewal(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	in.mu.Lock()
	in.logDelay = 40 * time.Millisecond
	in.mu.Unlock()
	g := in.enqueue(t, shell(`i=0; while [ $i -lt 60 ]; do head -c 20000 /dev/zero | tr '\0' x; echo; sleep 0.1; i=$((i+1)); done`))
	sends := &logSends{}
	w := runAgent(t, in, func(c *Config) {
		c.logFlushEvery = 20 * time.Millisecond
		c.wrapTransport = func(next http.RoundTripper) http.RoundTripper { sends.next = next; return sends }
	})
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || len(in.attempt(g.AttemptID).log) != 60*20_001 {
		t.Fatalf("completion %+v, %d bytes of log; want the command's whole output\n%s", done, len(in.attempt(g.AttemptID).log), w.logs)
	}
	n, least := sends.stats()
	in.mu.Lock()
	t.Logf("%d log chunks sent, the least time one was given %s; %d of %d answers came after the worker gave its send up", n, least, in.logAbandoned, in.logRequests)
	in.mu.Unlock()
	if n == 0 || least < minLeaseTry/2 {
		t.Fatalf("a log chunk was sent with %s left before its deadline; want at least the %s a send is given, less what encoding the chunk takes\n%s",
			least, minLeaseTry, w.logs)
	}
}

// logSends passes a worker's requests on and keeps the least time a log
// chunk's send was given: its deadline less the time it left the worker.
type logSends struct {
	next  http.RoundTripper
	mu    sync.Mutex
	n     int
	least time.Duration
}

func (l *logSends) RoundTrip(r *http.Request) (*http.Response, error) {
	if deadline, ok := r.Context().Deadline(); ok && r.URL.Path == workerproto.PathLog {
		left := time.Until(deadline)
		l.mu.Lock()
		if l.n == 0 || left < l.least {
			l.least = left
		}
		l.n++
		l.mu.Unlock()
	}
	return l.next.RoundTrip(r)
}

// CloseIdleConnections closes the wrapped transport's, as the worker's
// client asks when it ends.
func (l *logSends) CloseIdleConnections() {
	if c, ok := l.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (l *logSends) stats() (int, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.least
}

// The output flushes of all of a worker's commands together stay under
// its bound, however many print at once: each command flushes less often
// than every 250 ms once they are many, instead of one worker's chatty
// commands sending more requests a second than a replica takes from it
// (64 of them were refused 429 at the default 200 a second).
func TestManyChattyCommandsFlushTheirOutputNoMoreOftenThanTheWorkersBound(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	var grants []workerproto.Grant
	for range 4 {
		grants = append(grants, in.enqueue(t, shell(`i=0; while [ $i -lt 60 ]; do echo line $i; sleep 0.05; i=$((i+1)); done`)))
	}
	start := time.Now()
	w := runAgent(t, in, func(c *Config) { c.Concurrency, c.logFlushesPerSecond = 4, 8 })
	for _, g := range grants {
		if done := in.completed(g.AttemptID); done.Outcome != workerproto.OutcomeExited || len(in.attempt(g.AttemptID).log) == 0 {
			t.Fatalf("completion %+v; want every command run to its end\n%s", done, w.logs)
		}
	}
	took := time.Since(start)
	in.mu.Lock()
	sent := in.logRequests
	in.mu.Unlock()
	// Four commands of about 3 s: at 8 flushes a second in all, about
	// 24, and a last one each; at 4 a second each, about 48.
	if limit := int(8*took.Seconds()) + 8; sent > limit {
		t.Fatalf("%d log requests in %s from 4 commands; want at most %d (8 a second in all, and a last flush each)", sent, took.Round(time.Millisecond), limit)
	}
}

// A line a command prints after a quiet spell (here its first) is sent at
// once, not at the next tick of the flush cadence: with a cadence of an
// hour the replica holds it while the command still runs.
func TestALinePrintedAfterAQuietSpellIsSentAtOnceNotAtTheNextFlush(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	g := in.enqueue(t, shell(`echo first; sleep 300`))
	runAgent(t, in, func(c *Config) { c.logFlushEvery = time.Hour })
	waitFor(t, "the first line to reach the replica", func() bool { return string(in.attempt(g.AttemptID).log) == "first\n" })
	if a := in.attempt(g.AttemptID); a.complete != nil {
		t.Fatalf("the command completed (%+v); want its line sent while it runs", a.complete)
	}
}

// A line a command whose environment holds a secret prints reaches the
// replica while the command is quiet, not only once it prints again or
// ends: the masking holds back only output that could still be the start
// of a secret, and a line end cannot.
func TestALineACommandWithASecretPrintsIsSentBeforeItPrintsAgain(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	secrets := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"api-token": "v3ry-s3cret-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := shell(`echo "token=$API_TOKEN ok"; echo done; sleep 300`)
	c.Env = []task.EnvVar{{Name: "API_TOKEN", SecretRef: "api-token"}}
	g := in.enqueue(t, c)
	runAgent(t, in, func(c *Config) { c.SecretsFile = secrets })
	waitFor(t, "the line to reach the replica", func() bool { return string(in.attempt(g.AttemptID).log) == "token=*** ok\ndone\n" })
	if a := in.attempt(g.AttemptID); a.complete != nil {
		t.Fatalf("the command completed (%+v); want its line sent while it runs", a.complete)
	}
}

// An internal error of one replica (500, the ingress's own answer: a
// failure the worker cannot act on, logged there) says nothing of the
// attempt: the worker sends the renewal to the next --server, as after a
// 503, and the command runs on, instead of being killed as if its lease
// had been refused.
func TestARenewalAnsweredWithAnInternalErrorGoesToTheNextServer(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	target, err := url.Parse(in.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := quietProxy(target)
	var failing atomic.Bool
	var internal atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !failing.Load() || r.URL.Path != workerproto.PathRenew {
			proxy.ServeHTTP(w, r)
			return
		}
		internal.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"code":"internal","message":"internal error; the replica's log has the details under code ingress.internal_error"}`+"\n")
	}))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 3; echo done`, dir)))
	w := runAgent(t, in, func(c *Config) { c.Server = front.URL + "," + in.srv.URL })
	readPid(t, filepath.Join(dir, "pid"))
	failing.Store(true)
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || string(in.attempt(g.AttemptID).log) != "done\n" {
		t.Fatalf("completion %+v, log %q behind a replica answering renewals 500; want the command run to its end\n%s", done, in.attempt(g.AttemptID).log, w.logs)
	}
	if internal.Load() == 0 || strings.Contains(w.logs.String(), "attempt_renew_refused") {
		t.Fatalf("%d renewals answered 500; the worker's log:\n%s", internal.Load(), w.logs)
	}
}
