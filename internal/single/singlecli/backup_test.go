package singlecli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// `ql backup` taken while the server serves is a data directory that
// serves: the copy's Runs, their logs and the secrets file are there, the
// database and the secrets keep mode 0600, and a second backup into the
// same directory is refused rather than mixed into it. How to restore it
// says to stop the live server first.
func TestBackupWhileServingIsAServableCopyWithItsLogsAndSecrets(t *testing.T) {
	t.Parallel()
	dir, dest := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	writeFile(t, dir, "qinglong-secrets.json", `{"api-key": "not-a-real-secret"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql-edge"), []string{"serve", "--example", "--data-dir", dir}, &out, &errOut)
	}()
	runID := waitForSucceededRun(t, filepath.Join(dir, "qinglong.db"), exit, &errOut)

	code, stdout, stderr := ql(t, "backup", dest, "--data-dir", dir)
	if code != 0 || !strings.Contains(stdout, "backup written to "+dest) || !strings.Contains(stderr, "logs: ") || !strings.Contains(stderr, "secrets: ") {
		t.Fatalf("backup: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	// Served beside the live server, the copy would run every trigger
	// again: the way to restore it says to stop that server first, then
	// to copy the backup into its place, keeping the backup a backup.
	if want := "to restore it, stop the server of " + dir + " first, then copy the backup to its path, `mv " + dir + " " + dir + ".old && cp -a " + dest + " " + dir + "`"; !strings.Contains(stdout, want) {
		t.Errorf("backup: stdout %q; want %q", stdout, want)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	for _, name := range []string{"qinglong.db", "qinglong-secrets.json"} {
		st, err := os.Stat(filepath.Join(dest, name))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s in the backup: %v, %v; want mode 0600", name, st, err)
		}
	}
	if code, logOut, logErr := ql(t, "runs", "logs", runID, "--data-dir", dest); code != 0 || !strings.Contains(logOut, "hello from QingLong, run "+runID) {
		t.Fatalf("the backup's log of run %s: exit %d %q %q", runID, code, logOut, logErr)
	}
	if code, _, stderr := ql(t, "backup", dest, "--data-dir", dir); code != 2 || !strings.Contains(stderr, "is not empty; give a new or empty directory") {
		t.Fatalf("a second backup into the same directory: exit %d %q", code, stderr)
	}
}

// A server started on a backup taken while a command ran (as an operator
// checking the backup on the same host would) records that Run lost, as
// after a crash, and leaves the command alone: it is the live server's,
// which still runs it.
func TestServingABackupLeavesTheLiveServersCommandsAlone(t *testing.T) {
	t.Parallel()
	c := serveCopyWithALostRun(t)
	pid, running, db := c.pid, c.runID, c.live
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the live server's command (process %d) is gone after the copy started: %v", pid, err)
	}
	var state string
	if err := db.QueryRow(`SELECT state FROM runs WHERE id = ?`, running).Scan(&state); err != nil || state != "running" {
		t.Fatalf("the live server's Run is %q (%v), want still running", state, err)
	}
}

// lostCopy is a server on a backup taken while the live server ran a
// command: the copy's server has recorded that Run lost.
type lostCopy struct {
	dir   string  // the copy's data directory, served
	runID string  // the Run lost in the copy, running in the live server
	pid   int     // the live server's command
	live  *sql.DB // the live server's database, read-only
}

// serveCopyWithALostRun serves a live server running a slow command, backs
// it up, serves the copy until the copy has recorded the Run lost, and
// stops both servers when the test ends.
func serveCopyWithALostRun(t *testing.T) lostCopy {
	t.Helper()
	dir, db := serveSlow(t, "30")
	running := runIn(t, db, "running")
	// The Run is running from its start's commit; the attempt's process
	// id is recorded once the command has been launched, a write later.
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid <= 0; time.Sleep(50 * time.Millisecond) {
		err := db.QueryRow(`SELECT pid FROM attempts WHERE run_id = ? AND state = 'running'`, running).Scan(&pid)
		if time.Now().After(deadline) {
			t.Fatalf("the running command's pid after 20s: %d, %v", pid, err)
		}
	}
	dest := filepath.Join(t.TempDir(), "copy")
	if code, _, stderr := ql(t, "backup", dest, "--data-dir", dir); code != 0 {
		t.Fatalf("backup: exit %d %q", code, stderr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dest, "--concurrency", "1", "--stop-timeout", testStopTimeout}, &syncBuffer{}, &errOut)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-exit; code != 0 {
			t.Errorf("the copy's server exited %d: %s", code, errOut.String())
		}
	})
	copied := readOnlyDB(t, dest)
	deadline := time.Now().Add(20 * time.Second)
	for state := ""; state != "lost"; {
		if time.Now().After(deadline) {
			t.Fatalf("the copy's Run %s is %q after 20s, want lost; the copy's server said:\n%s", running, state, errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
		_ = copied.QueryRow(`SELECT state FROM runs WHERE id = ?`, running).Scan(&state)
	}
	return lostCopy{dir: dest, runID: running, pid: pid, live: db}
}

// `ql runs cancel` of a lost Run closes it cancelled and says so — not
// "already cancelled", which would tell the operator nothing happened —
// and asked again, says that it had already ended.
func TestRunsCancelOfALostRunSaysItClosedIt(t *testing.T) {
	t.Parallel()
	c := serveCopyWithALostRun(t)
	code, out, errOut := ql(t, "runs", "cancel", c.runID, "--data-dir", c.dir)
	if want := "run " + c.runID + ": cancelled (it was lost: nothing was running it)\n"; code != 0 || out != want {
		t.Fatalf("cancel a lost run: exit %d %q %q; want %q", code, out, errOut, want)
	}
	code, out, errOut = ql(t, "runs", "cancel", c.runID, "--data-dir", c.dir)
	if want := "run " + c.runID + ": already cancelled; nothing to cancel\n"; code != 0 || out != want {
		t.Fatalf("cancel it again: exit %d %q %q; want %q", code, out, errOut, want)
	}
}
