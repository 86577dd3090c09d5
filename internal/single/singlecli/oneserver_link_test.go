package singlecli

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A server is refused on a database another server serves, however the
// file is reached: a data directory whose qinglong.db is a symbolic link to
// the served file, or a hard link to it, has a lock file of its own, and a
// server started there would recover the first server's running attempt as
// lost and end its command. Each refusal exits 4 naming the first server's
// pid and the path it serves the file by, and the first server's command
// still runs afterwards, its attempt still running. A command given the
// linked directory knows the file is served.
func TestASecondServerIsRefusedOnADatabaseReachedThroughASymbolicOrHardLink(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	db := filepath.Join(dir, "qinglong.db")
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", strings.Replace(goodFile, "echo hello", "sleep 300", 1)), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	first := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	read, err := sql.Open("sqlite", db+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer read.Close()
	var group int
	deadline := time.Now().Add(45 * time.Second)
	for read.QueryRow(`SELECT pid FROM attempts WHERE state = 'running' AND pid > 0`).Scan(&group) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("no command ran within 45s: %s", first.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { _ = syscall.Kill(-group, syscall.SIGKILL) })

	symlinked, hardLinked := t.TempDir(), t.TempDir()
	if err := os.Symlink(db, filepath.Join(symlinked, "qinglong.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(db, filepath.Join(hardLinked, "qinglong.db")); err != nil {
		t.Fatal(err)
	}
	for name, other := range map[string]string{"symbolic link": symlinked, "hard link": hardLinked} {
		want := fmt.Sprintf("another server (pid %d) is serving the database %s as %s (the same file, through a link): "+
			"only one server may use a database, however its file is reached; stop that server first, or give the data directory %s a database of its own",
			first.cmd.Process.Pid, filepath.Join(other, "qinglong.db"), db, other)
		if code, stdout, stderr := qlProcess(t, "serve", "--data-dir", other, "--cadence", "250ms"); code != 4 || stdout != "" || !refusedWith(stderr, "serve", want, 4) {
			t.Errorf("serve on a %s to a served database: exit %d, stdout %q, stderr %q; want exit 4 and the refusal %q", name, code, stdout, stderr, want)
		}
	}
	// A command on the linked directory sees the server too: the Run it
	// queues is run, so it says nothing of a missing server.
	if code, stdout, stderr := qlProcess(t, "triggers", "run", "tick", "--force", "--data-dir", symlinked); code != 0 || strings.Contains(stderr, "no server is running") {
		t.Errorf("triggers run on the symbolic link beside the serving server: exit %d, stdout %q, stderr %q; want exit 0 and no word of a missing server", code, stdout, stderr)
	}
	var running int
	if err := read.QueryRow(`SELECT count(*) FROM attempts WHERE state = 'running' AND pid = ?`, group).Scan(&running); err != nil {
		t.Fatal(err)
	}
	if running != 1 {
		t.Errorf("the first server's attempt is no longer running after the refused starts: %s", first.stderr.String())
	}
	if err := syscall.Kill(-group, 0); err != nil {
		t.Errorf("the first server's command (process group %d) was ended by a refused start: %v", group, err)
	}
	first.stop(t)
}
