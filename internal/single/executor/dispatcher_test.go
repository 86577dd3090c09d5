package executor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

func TestAdmittedRunIsExecutedWithItsEnvironmentAndRecorded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeSecrets(t, h.dir, 0o600)
	c := shell(`echo "greeting=$GREETING"; echo "token=$TOKEN"; echo "run=$QL_RUN_ID"; echo oops >&2`, time.Minute)
	c.Env = []task.EnvVar{{Name: "GREETING", Value: "hi"}, {Name: "TOKEN", SecretRef: "api-token"}}
	runID := h.admit(t, c)
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	got := h.detail(t, runID)
	want := []string{run.EventCreated, run.EventQueued, run.EventRunning, run.EventAttemptStarted, run.EventSucceeded}
	if !slices.Equal(names(got), want) || got.Run.State != run.Succeeded {
		t.Fatalf("run %s with events %v; want succeeded with %v", got.Run.State, names(got), want)
	}
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), got.Attempts[0].ID, &log); err != nil {
		t.Fatal(err)
	}
	wantLog := "greeting=hi\ntoken=***\nrun=" + runID + "\noops\n"
	if log.String() != wantLog {
		t.Fatalf("log %q, want %q", log.String(), wantLog)
	}
	if a := got.Attempts[0]; a.LogBytes != int64(len(wantLog)) || a.LogTruncated || a.ExitCode == nil || *a.ExitCode != 0 {
		t.Fatalf("attempt %+v", a)
	}
}

// A command is told which occurrence its Run is for, what fired and how
// the Run was made, in the variables a cluster worker gives its commands
// (run.Identity).
func TestACommandIsToldItsOccurrenceTriggerAndOrigin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell(`env | grep '^QL_' | sort`, time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	got := h.detail(t, runID)
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), got.Attempts[0].ID, &log); err != nil {
		t.Fatal(err)
	}
	r, at := got.Run, func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }
	want := []string{"QL_ATTEMPT_ID=" + got.Attempts[0].ID, "QL_ATTEMPT_NUMBER=1",
		"QL_DUE_AT=" + at(r.DueAtMs), "QL_DUE_AT_MS=" + strconv.FormatInt(r.DueAtMs, 10), "QL_ORIGIN=clock",
		"QL_PROJECT=" + r.ProjectName, "QL_RUN_ID=" + runID, "QL_SCHEDULED_AT=" + at(r.ScheduledForMs),
		"QL_SCHEDULED_AT_MS=" + strconv.FormatInt(r.ScheduledForMs, 10), "QL_TASK=" + r.TaskName, "QL_TRIGGER=" + r.TriggerName}
	if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); !slices.Equal(lines, want) || r.TriggerName == "" || r.TaskName == "" || r.DueAtMs == 0 {
		t.Fatalf("the command's QL_ variables\n got %q\nwant %q", lines, want)
	}
}

// The secret value may reach the child's environment and nowhere else: not
// the log file, not an event, not any byte of the database file or its WAL.
func TestSecretValuesNeverReachLogsEventsOrTheDatabase(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeSecrets(t, h.dir, 0o600)
	c := shell(`echo "$TOKEN"; printf '%s' "$TOKEN" | cat; echo; printf '%s' "$TOKEN" | sha256sum`, time.Minute)
	c.Env = []task.EnvVar{{Name: "TOKEN", SecretRef: "api-token"}}
	runID := h.admit(t, c)
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	got := h.detail(t, runID)
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), got.Attempts[0].ID, &log); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secretValue))
	if got.Run.State != run.Succeeded || log.String() != "***\n***\n"+hex.EncodeToString(sum[:])+"  -\n" {
		t.Fatalf("run %s, log %q: the child did not receive the secret value, or its output was not masked", got.Run.State, log.String())
	}
	for _, e := range got.Events {
		if strings.Contains(e.Payload, secretValue) {
			t.Fatalf("event %s carries the secret", e.Name)
		}
	}
	var files []string
	err := filepath.WalkDir(h.dir, func(path string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && filepath.Base(path) != "secrets.json" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("expected the database, its WAL and the log under %s, found %v", h.dir, files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(secretValue)) {
			t.Fatalf("%s contains the secret value", f)
		}
	}
}

// A line a command whose environment holds a secret prints is in its log
// while the command is quiet, not only once it prints again or ends: the
// masking holds back only output that could still be the start of a
// secret, and a line end cannot.
func TestALineACommandWithASecretPrintsIsLoggedBeforeItPrintsAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeSecrets(t, h.dir, 0o600)
	c := shell(`echo "token=$TOKEN ok"; echo done; sleep 300`, time.Hour)
	c.Env = []task.EnvVar{{Name: "TOKEN", SecretRef: "api-token"}}
	runID := h.admit(t, c)
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	waitState(t, h, runID, run.Running)
	logPath := h.detail(t, runID).Attempts[0].LogPath
	const want = "token=*** ok\ndone\n"
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %q while the command sleeps; want %q", data, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := h.detail(t, runID); got.Run.State != run.Running {
		t.Fatalf("run %s; want the line logged while the command still runs", got.Run.State)
	}
	if _, _, err := h.store.CancelRun(t.Context(), runID, "test"); err != nil {
		t.Fatal(err)
	}
	d.Wake()
	sig.wait(t, 1)
}

func TestTimedOutRunIsRecordedWithItsEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, got := h.runAlone(t, shell("sleep 300", 200*time.Millisecond))
	if res.State != run.AttemptTimedOut || got.Run.State != run.TimedOut || names(got)[len(got.Events)-1] != run.EventTimedOut {
		t.Fatalf("attempt %s, run %s, events %v; want timed_out", res.State, got.Run.State, names(got))
	}
}

// logBytes is the size of the stored log (the kept output and the marker),
// as the cluster counts the bytes it holds, not the output produced.
func TestLargeOutputIsCappedAndLogBytesCountTheStoredLog(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell(`head -c 50000 /dev/zero | tr '\0' x`, time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{logCap: 4096})
	d.Wake()
	sig.wait(t, 1)
	a := h.detail(t, runID).Attempts[0]
	want := 4096 + int64(len(run.TruncationMarker(4096)))
	if !a.LogTruncated || a.LogBytes != want || a.State != run.AttemptSucceeded {
		t.Fatalf("attempt %+v; want succeeded with logBytes %d (the cap plus the marker), truncated", a, want)
	}
	info, err := os.Stat(a.LogPath)
	if err != nil || info.Size() != want {
		t.Fatalf("log file %s: %v, %v; want the 4096-byte cap plus the marker", a.LogPath, info, err)
	}
}

// A command whose output passes the log cap has its log cut there while it
// still runs: the file holds the kept bytes and the truncation marker at
// once, and the attempt reads truncated in the store, so a reader
// following the Run sees bytes were dropped before it ends, not only
// after, as on the cluster. The marker is written once, at the cut.
func TestALogCutAtItsCapSaysSoWhileItsCommandStillRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := filepath.Join(h.dir, "release")
	runID := h.admit(t, shell(`head -c 50000 /dev/zero | tr '\0' x; until [ -e `+release+` ]; do sleep 0.05; done; echo after`, time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{logCap: 4096})
	d.Wake()
	want := strings.Repeat("x", 4096) + string(run.TruncationMarker(4096))
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := h.detail(t, runID).Attempts[0]
		held, _ := os.ReadFile(a.LogPath)
		if a.State == run.AttemptRunning && a.LogTruncated && string(held) == want {
			break
		}
		if a.State.Terminal() || time.Now().After(deadline) {
			t.Fatalf("attempt %s, truncated %v, log of %d bytes ending %q; want it running, truncated, its log the 4096 bytes kept and the marker",
				a.State, a.LogTruncated, len(held), held[max(0, len(held)-80):])
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sig.wait(t, 1)
	a := h.detail(t, runID).Attempts[0]
	held, err := os.ReadFile(a.LogPath)
	if err != nil || string(held) != want || !a.LogTruncated || a.LogBytes != int64(len(want)) || a.State != run.AttemptSucceeded {
		t.Fatalf("the ended attempt: %+v, log %d bytes (%v); want it succeeded, truncated, its log unchanged, the marker once", a, len(held), err)
	}
}

func TestMissingSecretFailsTheRunWithoutStartingIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := shell("echo should-not-run", time.Minute)
	c.Env = []task.EnvVar{{Name: "TOKEN", SecretRef: "nowhere"}}
	res, got := h.runAlone(t, c)
	if res.ErrorCode != ErrorCodeSecret || got.Run.State != run.Failed || slices.Contains(names(got), run.EventAttemptStarted) {
		t.Fatalf("attempt %+v, events %v; want failed before start", res, names(got))
	}
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), res.ID, &log); err != nil || !strings.Contains(log.String(), `secret "nowhere"`) || strings.Contains(log.String(), "should-not-run") {
		t.Fatalf("log %q, %v; want the reason and no output", log.String(), err)
	}
}

func TestConcurrencyBoundsHowManyCommandsRunAtOnce(t *testing.T) {
	t.Parallel()
	if most := newHarness(t).mostAtOnce(t, 6, 2); most != 2 {
		t.Fatalf("at most %d commands ran at once; want exactly the bound 2", most)
	}
}

// mostAtOnce admits runs commands that sleep a moment, lets a dispatcher
// of concurrency slots run them all and returns how many ran at once at
// the most.
func (h *harness) mostAtOnce(t *testing.T, runs, concurrency int) int {
	t.Helper()
	for range runs {
		h.admit(t, shell("sleep 0.2", time.Minute))
	}
	d, sig := h.dispatcher(t, dispatcherOpts{concurrency: concurrency})
	d.Wake()
	sig.wait(t, runs)
	sig.mu.Lock()
	defer sig.mu.Unlock()
	return sig.maxSeen
}

// A stop kills the running commands and records them lost with the code
// server_stopped: nobody cancelled their Runs, and their commands did not
// finish (a crash records the same, at the next start).
func TestStopKillsRunningCommandsAndRecordsThemLost(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("sleep 300", time.Hour))
	d, sig := h.dispatcher(t, dispatcherOpts{stopTimeout: 2 * time.Second})
	d.Wake()
	waitState(t, h, runID, run.Running)
	start := time.Now()
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The slack is for a loaded test machine; the command sleeps 300 s, so
	// a stop that waited for it instead of killing it still fails here.
	if elapsed := time.Since(start); elapsed > 6*time.Second {
		t.Fatalf("stop took %s with a 2s stop timeout", elapsed)
	}
	res := sig.wait(t, 1)[0]
	got := h.detail(t, runID)
	if res.State != run.AttemptLost || res.ErrorCode != process.ErrorCodeStopped || got.Run.State != run.Lost || names(got)[len(got.Events)-1] != run.EventLost {
		t.Fatalf("attempt %s (%s), run %s, events %v; want lost with %s", res.State, res.ErrorCode, got.Run.State, names(got), process.ErrorCodeStopped)
	}
}

// A command stopped because its run was asked to cancel is recorded with
// the code cancelled, not the code of a server that stopped.
func TestACancelledCommandIsRecordedCancelledNotServerStopped(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("sleep 300", time.Hour))
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	waitState(t, h, runID, run.Running)
	if _, _, err := h.store.CancelRun(t.Context(), runID, "test"); err != nil {
		t.Fatal(err)
	}
	d.Wake()
	res := sig.wait(t, 1)[0]
	if res.State != run.AttemptCancelled || res.ErrorCode != ErrorCodeCancelled {
		t.Fatalf("attempt %s with code %q, want cancelled with code %q", res.State, res.ErrorCode, ErrorCodeCancelled)
	}
}

// A command the server stopped says so at the end of its log, as a
// cancelled or timed-out one does.
func TestACommandTheServerStoppedEndsItsLogWithALineSayingSo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("sleep 300", time.Hour))
	d, sig := h.dispatcher(t, dispatcherOpts{stopTimeout: 2 * time.Second})
	d.Wake()
	waitState(t, h, runID, run.Running)
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	sig.wait(t, 1)
	data, err := os.ReadFile(h.detail(t, runID).Attempts[0].LogPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[len(lines)-1] != "[qinglong: the command was stopped: the server is stopping (SIGTERM; it ended within the kill grace of 5s)]" {
		t.Fatalf("log %q does not end with the line saying the server stopped the command", data)
	}
}

// A command killed by a signal it did not get from QingLong names the
// signal in its attempt's error message and in its Run's end event.
func TestASignalThatKilledTheCommandIsInItsMessageAndItsRunsEndEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("kill -SEGV $$", time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	got := h.detail(t, runID)
	a, end := got.Attempts[0], got.Events[len(got.Events)-1]
	if a.ErrorCode != process.ErrorCodeSignaled || a.ErrorMessage != "the command was killed by signal 11 (SIGSEGV)" {
		t.Fatalf("attempt code %q message %q; want killed_by_signal naming SIGSEGV", a.ErrorCode, a.ErrorMessage)
	}
	var payload map[string]any
	if err := json.Unmarshal([]byte(end.Payload), &payload); err != nil {
		t.Fatal(err)
	}
	if end.Name != run.EventFailed || payload["errorCode"] != process.ErrorCodeSignaled || payload["signal"] != 11.0 || payload["signalName"] != "SIGSEGV" {
		t.Fatalf("end event %s %s; want run.failed with errorCode killed_by_signal, signal 11, signalName SIGSEGV", end.Name, end.Payload)
	}
}

// A command that could not start says so in its attempt's error message,
// as a worker reports it, besides its log.
func TestACommandThatCouldNotStartHasAMessageAsOnAWorker(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, task.Command{Mode: task.ModeArgv, Path: "/nonexistent/program", TimeoutMs: 60_000})
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	a := h.detail(t, runID).Attempts[0]
	if a.ErrorCode != process.ErrorCodeSpawnFailed || a.ErrorMessage != run.NotStartedMessage {
		t.Fatalf("attempt code %q message %q; want spawn_failed with %q", a.ErrorCode, a.ErrorMessage, run.NotStartedMessage)
	}
}

// waitState waits, bounded, for the run to reach state — the attempt's
// process start is recorded asynchronously.
func waitState(t testing.TB, h *harness, runID string, state run.State) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		d := h.detail(t, runID)
		if d.Run.State == state && slices.Contains(names(d), run.EventAttemptStarted) {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("run %s stayed %s", runID, d.Run.State)
		case <-tick.C:
		}
	}
}

func TestRecoveryLosesOnlyAttemptsOfDeadOwnersAndNeverReRunsThem(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ownersDir := filepath.Join(h.dir, "owners")
	alive, err := AcquireOwner(ownersDir)
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Release()
	dead, err := AcquireOwner(ownersDir)
	if err != nil {
		t.Fatal(err)
	}
	aliveRun, deadRun, pristineRun := h.admit(t, shell("true", time.Minute)), h.admit(t, shell("true", time.Minute)), h.admit(t, shell("true", time.Minute))
	start := func(runID string, o *Owner) {
		a := h.detail(t, runID).Attempts[0]
		if _, _, _, err := h.store.AttemptStart(t.Context(), a.ID, o.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	start(aliveRun, alive)
	start(deadRun, dead)
	if err := dead.Release(); err != nil {
		t.Fatal(err)
	}
	self, err := AcquireOwner(ownersDir)
	if err != nil {
		t.Fatal(err)
	}
	defer self.Release()
	rec, err := Recover(t.Context(), h.store, self)
	if err != nil || rec != (Recovery{Lost: 1, Finished: run.FinishCounts{Lost: 1}}) {
		t.Fatalf("recover: %+v, %v; want exactly the dead owner's attempt (it never started a process), its Run finished lost", rec, err)
	}
	for runID, want := range map[string]run.State{aliveRun: run.Running, deadRun: run.Lost, pristineRun: run.Queued} {
		if got := h.detail(t, runID).Run.State; got != want {
			t.Fatalf("run %s is %s after recovery, want %s", runID, got, want)
		}
	}
	lost := h.detail(t, deadRun)
	if names(lost)[len(lost.Events)-1] != run.EventLost || lost.Attempts[0].State != run.AttemptLost || len(lost.Attempts) != 1 {
		t.Fatalf("lost run events %v attempts %+v; want run.lost and no new attempt", names(lost), lost.Attempts)
	}
	if again, err := Recover(t.Context(), h.store, self); err != nil || again.Lost != 0 {
		t.Fatalf("second recovery: %+v, %v; want nothing left to lose", again, err)
	}
}

// flakyFinish fails the first AttemptFinish the way a write lock held past
// the busy timeout does.
type flakyFinish struct {
	Store
	failures atomic.Int32
}

func (f *flakyFinish) AttemptFinish(ctx context.Context, a run.Attempt) (run.State, error) {
	if f.failures.Add(1) == 1 {
		return "", qlerror.New(qlerror.Unavailable, "injected: the database is locked by another writer")
	}
	return f.Store.AttemptFinish(ctx, a)
}

func TestAResultIsRecordedAfterTheDatabaseWasBrieflyUnavailable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell("true", time.Minute))
	flaky := &flakyFinish{Store: h.store}
	d, sig := h.dispatcherOn(t, flaky, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	if n := flaky.failures.Load(); n < 2 {
		t.Fatalf("AttemptFinish was called %d times; the injected failure did not happen or was not retried", n)
	}
	if got := h.detail(t, runID); got.Run.State != run.Succeeded {
		t.Fatalf("run %s after a retried result, want succeeded", got.Run.State)
	}
}

// A stop does not wait out a long kill grace: what ignores SIGTERM is
// killed at three quarters of the stop timeout and recorded lost.
func TestStopCutsALongKillGraceShort(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := shell(`trap '' TERM; while :; do sleep 0.05; done`, time.Hour)
	c.KillGraceMs = (10 * time.Minute).Milliseconds()
	runID := h.admit(t, c)
	d, sig := h.dispatcher(t, dispatcherOpts{stopTimeout: 2 * time.Second})
	d.Wake()
	waitState(t, h, runID, run.Running)
	if err := d.Stop(context.Background()); err != nil {
		t.Fatalf("stop with a 10-minute kill grace: %v", err)
	}
	if res := sig.wait(t, 1)[0]; res.State != run.AttemptLost {
		t.Fatalf("attempt %s; want lost", res.State)
	}
}
