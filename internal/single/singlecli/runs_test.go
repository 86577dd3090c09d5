package singlecli

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// Commands that take SECONDS seconds, one at a time, admitted every
// second: while one runs, later ones wait queued.
const slowFile = `project: demo
tasks:
  - name: slow
    script: echo "start $QL_RUN_ID"; sleep SECONDS; echo end
triggers:
  - name: every-second
    task: slow
    cron: "* * * * * *"
    timezone: UTC
`

// serveSlow serves slowFile with one command of the given seconds at a
// time.
func serveSlow(t *testing.T, seconds string) (string, *sql.DB) {
	t.Helper()
	return serveDefs(t, strings.Replace(slowFile, "SECONDS", seconds, 1))
}

// serveDefs applies defs to a fresh data directory and serves it with one
// command at a time and serveArgs; it returns the directory and a query on
// its database.
func serveDefs(t *testing.T, defs string, serveArgs ...string) (string, *sql.DB) {
	t.Helper()
	dir := installedDir(t)
	applyDefs(t, dir, defs)
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	args := append([]string{"serve", "--data-dir", dir, "--concurrency", "1", "--stop-timeout", testStopTimeout}, serveArgs...)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), args, &syncBuffer{}, &errOut)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-exit; code != 0 {
			t.Errorf("serve exited %d: %s", code, errOut.String())
		}
	})
	db := readOnlyDB(t, dir)
	return dir, db
}

// runIn waits up to 20s for a run in state and returns the newest.
func runIn(t *testing.T, db *sql.DB, state string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var id string
		if err := db.QueryRow(`SELECT id FROM runs WHERE state = ? ORDER BY id DESC LIMIT 1`, state).Scan(&id); err == nil {
			return id
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no run was %s within 20s", state)
	return ""
}

// A queued local run is cancelled at once and never starts; a running
// one gets a cancel intent that the serving process's executor acts on:
// its command is stopped and the run ends cancelled.
func TestRunsCancelEndsAQueuedLocalRunAndStopsARunningOne(t *testing.T) {
	t.Parallel()
	// Long enough that the running run is still running when it is
	// cancelled, however slow the machine.
	dir, db := serveSlow(t, "30")
	running := runIn(t, db, "running")
	queued := runIn(t, db, "queued")
	code, out, errOut := ql(t, "runs", "cancel", queued, "--data-dir", dir)
	if code != 0 || out != "run "+queued+": cancelled\n" {
		t.Fatalf("cancel a queued run: %d %q %q", code, out, errOut)
	}
	code, out, _ = ql(t, "runs", "show", queued, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "state      cancelled") || !strings.Contains(out, "run.cancelled") {
		t.Fatalf("show the cancelled run: %d %q", code, out)
	}
	// Asked again, the cancel says the Run had already ended.
	if code, out, errOut := ql(t, "runs", "cancel", queued, "--data-dir", dir); code != 0 || out != "run "+queued+": already cancelled; nothing to cancel\n" {
		t.Fatalf("cancel a cancelled run: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "cancel", running, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "cancellation requested; it is running until the command is stopped") {
		t.Fatalf("cancel a running run: %d %q %q", code, out, errOut)
	}
	// Asked again: the intent is kept once, or the command has already
	// been stopped and the run is over (the server sees the first
	// cancel's commit within its watch period).
	code, out, errOut = ql(t, "runs", "cancel", running, "--data-dir", dir)
	if code != 0 || !(strings.Contains(out, "cancellation requested") || out == "run "+running+": already cancelled; nothing to cancel\n") {
		t.Fatalf("cancel a running run again: %d %q %q", code, out, errOut)
	}
	deadline := time.Now().Add(20 * time.Second)
	var state, attempt string
	for {
		if err := db.QueryRow(`SELECT r.state, a.state FROM runs r JOIN attempts a ON a.run_id = r.id WHERE r.id = ?`, running).Scan(&state, &attempt); err != nil {
			t.Fatal(err)
		}
		if state != "running" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if state != "cancelled" || attempt != "cancelled" {
		t.Fatalf("the running run is %s (attempt %s) after its cancel; want both cancelled well before its 30 s command ends", state, attempt)
	}
	var intents int
	if err := db.QueryRow(`SELECT count(*) FROM run_events WHERE run_id = ? AND name = 'run.cancel_requested'`, running).Scan(&intents); err != nil || intents != 1 {
		t.Fatalf("%d cancel intents recorded (%v); want one", intents, err)
	}
	if code, out, _ = ql(t, "runs", "logs", running, "--data-dir", dir); code != 0 || !strings.Contains(out, "the command was stopped: the run was asked to cancel") || strings.Contains(out, "\nend\n") {
		t.Fatalf("the cancelled run's log: %d %q; want the stop noted and no end", code, out)
	}
	time.Sleep(200 * time.Millisecond)
	if err := db.QueryRow(`SELECT state FROM runs WHERE id = ?`, queued).Scan(&state); err != nil || state != "cancelled" {
		t.Fatalf("the cancelled run is %q (%v) later; a dispatcher must never start it", state, err)
	}
	if code, _, errOut := ql(t, "runs", "cancel", "0193a8a0-0000-7000-8000-00000000abcd", "--data-dir", dir); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("cancel an unknown run: %d %q", code, errOut)
	}
	if code, _, errOut := ql(t, "runs", "cancel", queued, "--data-dir", t.TempDir()); code != 1 || !strings.Contains(errOut, "no QingLong database") {
		t.Fatalf("cancel in an empty directory: %d %q; want no database created", code, errOut)
	}
}

// logs -f prints a running command's output as it comes and returns when
// the run ends.
func TestRunsLogsFollowReturnsWhenALocalRunEnds(t *testing.T) {
	t.Parallel()
	dir, db := serveSlow(t, "2")
	running := runIn(t, db, "running")
	code, out, errOut := ql(t, "runs", "logs", "-f", running, "--data-dir", dir)
	returned := time.Now()
	if code != 0 || out != "start "+running+"\nend\n" {
		t.Fatalf("logs -f: %d %q %q; want the whole output", code, out, errOut)
	}
	if !strings.Contains(errOut, "(run "+running+" ended: succeeded)") {
		t.Fatalf("logs -f said %q; want the run's end", errOut)
	}
	// Counted from the run's recorded end, not from before the command
	// ran, so how long a loaded machine takes to run it does not count: a
	// follower polls a quiet run at most a second apart, and so sees the
	// end within a few of its polls.
	var finishedAtMs int64
	if err := db.QueryRow(`SELECT finished_at_ms FROM runs WHERE id = ?`, running).Scan(&finishedAtMs); err != nil {
		t.Fatal(err)
	}
	if took := returned.Sub(time.UnixMilli(finishedAtMs)); took > 10*time.Second {
		t.Fatalf("logs -f returned %s after the run ended", took)
	}
}

// Ctrl-C (or SIGTERM) is how one stops following a Run that has not
// ended: the command says it stopped following a Run that goes on, and
// the command that follows it again, then that it was interrupted, and
// exits 130, as a shell reports a command SIGINT ended, not "context
// canceled" with the exit status of a failure. Following a queued Run no
// server will start says so first, as the Run's reason to wait.
func TestAnInterruptedFollowSaysInterruptedAndExits130(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, strings.ReplaceAll(strings.Replace(slowFile, `"* * * * * *"`, `"0 0 1 1 *"`, 1), "SECONDS", "1"))
	if code, out, errOut := ql(t, "triggers", "run", "every-second", "--data-dir", dir); code != 0 {
		t.Fatalf("triggers run: %d %q %q", code, out, errOut)
	}
	code, out, _ := ql(t, "runs", "list", "--data-dir", dir, "-o", "json")
	var listed struct {
		Runs []struct{ ID string } `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed.Runs) != 1 {
		t.Fatalf("runs list: %d %q (%v)", code, out, err)
	}
	// No server runs it: the follow waits until it is interrupted. It is
	// interrupted once it has said why the Run waits (at most 30 s on), not
	// after a fixed moment a loaded machine may not give it to say so.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	go func() {
		defer cancel()
		for limit := time.Now().Add(30 * time.Second); time.Now().Before(limit) && ctx.Err() == nil; time.Sleep(10 * time.Millisecond) {
			if strings.Contains(stderr.String(), "waits:") {
				return
			}
		}
	}()
	code = cli.Main(ctx, Options("ql"), []string{"runs", "logs", "-f", listed.Runs[0].ID, "--data-dir", dir}, &stdout, &stderr)
	want := "(run " + listed.Runs[0].ID + " waits: no server is running on this data directory (" + dir + "), so nothing starts it; start one with `ql serve --data-dir " + dir + "`)\n" +
		"(stopped following; run " + listed.Runs[0].ID + " goes on: `ql runs logs " + listed.Runs[0].ID + " -f --data-dir " + dir + "` follows it again)\nql: interrupted\n"
	if code != cli.ExitInterrupted || stderr.String() != want {
		t.Fatalf("an interrupted logs -f: exit %d, stderr %q; want %d, that no server runs there and that it was interrupted", code, stderr.String(), cli.ExitInterrupted)
	}
}

// logs --attempt N prints that attempt's output: a standalone Run has one
// attempt, so --attempt 1 is its output and a number it does not have is
// refused with the numbers it has; a number below 1 is a usage error.
func TestRunsLogsAttemptPrintsTheNumberedAttemptAndNamesTheOnesARunHas(t *testing.T) {
	t.Parallel()
	dir, db := serveSlow(t, "0")
	done := runIn(t, db, "succeeded")
	want := "start " + done + "\nend\n"
	for _, args := range [][]string{{"--attempt", "1"}, {"--attempt", "1", "-f"}, nil} {
		code, out, errOut := ql(t, append([]string{"runs", "logs", done, "--data-dir", dir}, args...)...)
		if code != 0 || out != want {
			t.Fatalf("logs %v: %d %q %q; want %q", args, code, out, errOut, want)
		}
	}
	if code, out, errOut := ql(t, "runs", "logs", done, "--attempt", "2", "--data-dir", dir); code != 1 || out != "" ||
		!strings.Contains(errOut, "run "+done+" has no attempt 2; its attempts are 1") {
		t.Fatalf("logs --attempt 2 of a one-attempt run: %d %q %q; want refused, naming attempt 1", code, out, errOut)
	}
	if code, _, errOut := ql(t, "runs", "logs", done, "--attempt", "-1", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "--attempt -1 is not an attempt number") {
		t.Fatalf("logs --attempt -1: %d %q; want a usage error", code, errOut)
	}
}
