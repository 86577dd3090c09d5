package singlecli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run its server left running when it was killed (SIGKILL: nothing of
// the server ends it) reads, from the data directory, as the database has
// it, running, but says its server is not running and what the next `ql
// serve` does with it: `runs show` on a line of its own and in -o json,
// `runs list` in a note under the table. That next server's recovery ends
// the attempt lost and ends its log with a line saying the server stopped
// without ending the command, where the log otherwise just stops, and
// `runs list` gives the lost Run's error code.
func TestARunLeftRunningByAKilledServerSaysSoAndItsLogEndsSayingWhyAtRecovery(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	srv, id := runPrintingStarted(t, dir, "killed")
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.exited

	want := "its server is not running on this data directory (" + dir + "), so nothing watches its command; the attempt is recovered at the next `ql-edge serve --data-dir " + dir + "`"
	if code, out, errOut := ql(t, "runs", "show", id, "--data-dir", dir); code != 0 || !strings.Contains(out, "\nstate      running") || !strings.Contains(out, "\nserver     "+want) {
		t.Fatalf("runs show: %d %q %q; want it running, with the line %q", code, out, errOut, want)
	}
	if d := runJSON(t, id, "--data-dir", dir); d.NoServer == nil || d.NoServer.DataDir != dir || !strings.HasPrefix(d.NoServer.Message, want) {
		t.Fatalf("runs show -o json: noServer %+v; want %s and %q", d.NoServer, dir, want)
	}
	if code, out, errOut := ql(t, "runs", "list", "--data-dir", dir); code != 0 || strings.Contains(out, "note:") ||
		!strings.Contains(errOut, "note: no server is running on this data directory ("+dir+"): nothing watches the commands of its dispatching and running Runs") {
		t.Fatalf("runs list: %d %q %q; want a note on standard error that no server watches the running Run", code, out, errOut)
	}

	again := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	waitState(t, dir, id, run.Lost)
	if code, out, errOut := ql(t, "runs", "logs", id, "--data-dir", dir); code != 0 || out != "started\n"+process.LostLine(false) {
		t.Fatalf("runs logs after recovery: %d %q %q; want the output, then the line saying the server stopped without ending it", code, out, errOut)
	}
	if code, out, errOut := ql(t, "runs", "show", id, "--data-dir", dir); code != 0 || strings.Contains(out, "\nserver ") {
		t.Fatalf("runs show after recovery: %d %q %q; want no word of a missing server beside a lost Run", code, out, errOut)
	}
	if code, out, errOut := ql(t, "runs", "list", "--data-dir", dir); code != 0 || !regexp.MustCompile(`(?m)^`+id+` +lost .* run_now +executor_lost$`).MatchString(out) {
		t.Fatalf("runs list after recovery: %d %q %q; want its row lost, made by run_now, with the error code executor_lost", code, out, errOut)
	}
	again.stop(t)
}

// runPrintingStarted serves dir with a task that prints "started" and
// sleeps, queues a Run of it under key and returns the server and the
// Run once its log holds that line: a Run whose command is known to run,
// for the tests that then take its server away.
func runPrintingStarted(t *testing.T, dir, key string) (*serveProcess, string) {
	t.Helper()
	applyDefs(t, dir, strings.Replace(napFile, "script: sleep 30", "script: echo started; sleep 30", 1))
	srv := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	id := queueRun(t, dir, key)
	waitState(t, dir, id, run.Running)
	deadline := time.Now().Add(15 * time.Second)
	for _, out, _ := ql(t, "runs", "logs", id, "--data-dir", dir); out != "started\n"; _, out, _ = ql(t, "runs", "logs", id, "--data-dir", dir) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's output was %q within 15s; want started", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return srv, id
}
