package singlecli

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

const napFile = `project: slow
tasks:
  - name: nap
    script: sleep 30
triggers:
  - name: yearly
    task: nap
    cron: "0 0 1 1 *"
    timezone: UTC
`

// queueRun runs the trigger slow/yearly now on dir and returns its Run.
func queueRun(t *testing.T, dir, request string) string {
	t.Helper()
	code, out, errOut := ql(t, "triggers", "run", "slow/yearly", "--request-id", request, "--data-dir", dir)
	id := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("run now: %d %q %q", code, out, errOut)
	}
	return id[1]
}

// runJSON is `ql-edge runs show id -o json` with where (--data-dir DIR or
// --api-url URL).
func runJSON(t *testing.T, id string, where ...string) view.RunDetail {
	t.Helper()
	code, out, errOut := ql(t, append([]string{"runs", "show", id, "-o", "json"}, where...)...)
	var d view.RunDetail
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
		t.Fatalf("runs show -o json: %d %q %q", code, out, errOut)
	}
	return d
}

// A queued Run read from a data directory no server serves says that no
// server is running there and how to start one, in ql-edge's own words, on
// the waiting line, in -o json and while `runs logs -f` follows it (once,
// with no second note saying the same); nothing it says names the cluster.
func TestAQueuedRunReadWithNoServerSaysNoServerIsRunningAndHowToStartOne(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	id := queueRun(t, dir, "idle")
	want := "no server is running on this data directory (" + dir + "), so nothing starts it; start one with `ql-edge serve --data-dir " + dir + "`"
	code, out, errOut := ql(t, "runs", "show", id, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "\nwaiting    "+want+"\n") {
		t.Fatalf("runs show: %d %q %q; want the waiting line %q", code, out, errOut, want)
	}
	d := runJSON(t, id, "--data-dir", dir)
	if w := d.Waiting; w == nil || w.Reason != run.WaitNoServer || w.DataDir != dir || w.Message != want {
		t.Fatalf("runs show -o json: waiting %+v; want %s in %s saying %q", w, run.WaitNoServer, dir, want)
	}
	// Interrupted as a user stops it, once it has said why the Run waits
	// and had time to look again (however slow a loaded machine makes the
	// first look).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logOut, logErr syncbuf.Buffer
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(logErr.String(), "waits: ") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		cancel()
	}()
	if code := cli.Main(ctx, Options("ql-edge"), []string{"runs", "logs", id, "-f", "--data-dir", dir}, &logOut, &logErr); code != cli.ExitInterrupted {
		t.Fatalf("runs logs -f: exit %d %q %q; want it following until interrupted", code, logOut.String(), logErr.String())
	}
	said := logErr.String()
	if strings.Count(said, "(run "+id+" waits: "+want+")") != 1 || strings.Contains(said, "note: no server") {
		t.Fatalf("runs logs -f said %q; want %q once and no second note of it", said, want)
	}
	for _, printed := range []string{out, said} {
		for _, word := range []string{"cluster", "worker", "replica"} {
			if strings.Contains(printed, word) {
				t.Errorf("ql-edge printed %q, which mentions %q", printed, word)
			}
		}
	}
}

// A queued Run read beside a server whose every slot holds a Run says
// that it waits its turn, with both numbers, and only that: read from the
// data directory, the server's --concurrency, pid and start come from the
// record the server keeps beside its lock; read through the server's API,
// from the server. It names the trigger whose Runs hold the slots, with how
// many each holds. Never that no server runs. Not parallel: it sets
// $QL_TOKEN.
func TestAQueuedRunReadBesideAServerAtItsConcurrencySaysItWaitsItsTurn(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	token := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone", "--concurrency", "1", "--cadence", "250ms")
	first := queueRun(t, dir, "first")
	deadline := time.Now().Add(15 * time.Second)
	for runJSON(t, first, "--data-dir", dir).Run.State != run.Running {
		if time.Now().After(deadline) {
			t.Fatal("the first Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := queueRun(t, dir, "second")
	code, out, errOut := ql(t, "runs", "show", second, "--data-dir", dir)
	want := "\nwaiting    it waits its turn: 1 of 1 command running, as many as the server's --concurrency allows; as one finishes it starts the Run queued first, this one in its turn; the slots are held by Runs of slow/yearly (1)\n"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "in a moment") || strings.Contains(out, "no server") {
		t.Fatalf("runs show beside the server: %d %q %q; want %q alone", code, out, errOut, want)
	}
	if w := runJSON(t, second, "--data-dir", dir).Waiting; w == nil || w.Reason != run.WaitServerBusy || w.Running != 1 || w.Concurrency != 1 ||
		w.ServerPID != os.Getpid() || w.ServerStartedAtMs <= 0 ||
		len(w.Holders) != 1 || w.Holders[0].Project != "slow" || w.Holders[0].Trigger != "yearly" || w.Holders[0].Runs != 1 {
		t.Fatalf("runs show --data-dir -o json: waiting %+v; want %s, 1 of 1, with this process's pid and a start, held by slow/yearly's 1 Run", w, run.WaitServerBusy)
	}
	t.Setenv("QL_TOKEN", token)
	d := runJSON(t, second, "--api-url", base)
	if w := d.Waiting; w == nil || w.Reason != run.WaitServerBusy || w.Running != 1 || w.Concurrency != 1 ||
		!strings.Contains(w.Message, "it waits its turn: 1 of 1 command running") {
		t.Fatalf("runs show --api-url: waiting %+v; want %s, 1 of 1", w, run.WaitServerBusy)
	}
	for _, id := range []string{second, first} {
		if code, out, errOut := ql(t, "runs", "cancel", id, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel: %d %q %q", code, out, errOut)
		}
	}
}

// A queued Run read beside a server with a slot free says that the server
// starts it in a moment, with both numbers, and only that. The server
// process is stopped (SIGSTOP) while the Run is queued, so that it reads
// as it does in the moment before the server's next dispatch; once let go
// (SIGCONT), the server starts it, as said.
func TestAQueuedRunReadBesideAServerUnderItsConcurrencySaysItStartsInAMoment(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	srv := startServe(t, "--data-dir", dir, "--concurrency", "3", "--cadence", "250ms", "--stop-timeout", "10s")
	first := queueRun(t, dir, "first")
	waitState(t, dir, first, run.Running)
	stopOutsideAWrite(t, srv, dir)
	second := queueRun(t, dir, "second")
	code, out, errOut := ql(t, "runs", "show", second, "--data-dir", dir)
	want := "\nwaiting    the server starts it in a moment (1 of 3 running)\n"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "its turn") || strings.Contains(out, "no server") {
		t.Fatalf("runs show beside a server with a slot free: %d %q %q; want %q alone", code, out, errOut, want)
	}
	if w := runJSON(t, second, "--data-dir", dir).Waiting; w == nil || w.Reason != run.WaitServerStarting || w.Running != 1 || w.Concurrency != 3 ||
		w.ServerPID != srv.cmd.Process.Pid || w.ServerStartedAtMs <= 0 {
		t.Fatalf("runs show -o json: waiting %+v; want %s, 1 of 3, with the server's pid %d and its start", w, run.WaitServerStarting, srv.cmd.Process.Pid)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitState(t, dir, second, run.Running)
	for _, id := range []string{second, first} {
		if code, out, errOut := ql(t, "runs", "cancel", id, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel: %d %q %q", code, out, errOut)
		}
	}
	srv.stop(t)
}

// stopOutsideAWrite stops the server process (SIGSTOP) at a moment it holds
// no write lock on the database: stopped inside a write, it would hold the
// lock until let go, and every command of the test would wait out its busy
// timeout and fail, as one did on a loaded machine. The lock is probed
// with a write transaction that waits for nothing; found taken, the server
// is let go (SIGCONT) and stopped again a moment later.
func stopOutsideAWrite(t *testing.T, srv *serveProcess, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 50 {
		if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		_, err := db.Exec(`BEGIN IMMEDIATE; ROLLBACK`)
		if err == nil {
			return
		}
		if err := srv.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the server held the write lock at each of 50 stops")
}

// The record a killed server leaves beside its lock is not believed: the
// kernel dropped the lock with the process, so a queued Run read from the
// data directory says that no server is running and how to start one,
// and -o json gives none of the dead server's numbers.
func TestAQueuedRunReadBesideTheRecordOfAKilledServerSaysNoServerIsRunning(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	srv := startServe(t, "--data-dir", dir, "--concurrency", "2", "--cadence", "250ms")
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.exited
	left, err := os.ReadFile(server.LayoutOf(dir).Lock)
	if err != nil || !strings.Contains(string(left), "concurrency=2") {
		t.Fatalf("the killed server left %q (%v) beside its lock; want its record, concurrency=2", left, err)
	}
	id := queueRun(t, dir, "after")
	want := "no server is running on this data directory (" + dir + "), so nothing starts it; start one with `ql-edge serve --data-dir " + dir + "`"
	if code, out, errOut := ql(t, "runs", "show", id, "--data-dir", dir); code != 0 || !strings.Contains(out, "\nwaiting    "+want+"\n") {
		t.Fatalf("runs show: %d %q %q; want the waiting line %q", code, out, errOut, want)
	}
	if w := runJSON(t, id, "--data-dir", dir).Waiting; w == nil || w.Reason != run.WaitNoServer || w.Concurrency != 0 || w.ServerPID != 0 || w.ServerStartedAtMs != 0 {
		t.Fatalf("runs show -o json: waiting %+v; want %s and nothing of the dead server", w, run.WaitNoServer)
	}
}

// waitState waits until the Run id on dir is in state want.
func waitState(t *testing.T, dir, id string, want run.State) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for runJSON(t, id, "--data-dir", dir).Run.State != want {
		if time.Now().After(deadline) {
			t.Fatalf("run %s was not %s within 30s", id, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
