package singlecli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/single/server"
)

// serveProcess is `ql serve` in a process of its own, as an operator
// starts it: the server's data directory lock is the kernel's, per open
// file, so only separate processes show what two operators would see.
type serveProcess struct {
	cmd    *exec.Cmd
	stderr syncBuffer
	// exited is closed once the process has exited and cmd.ProcessState
	// is set.
	exited chan struct{}
}

// startServe starts `ql serve args...` and waits until it serves.
func startServe(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	return startServeWith(t, nil, args...)
}

// startServeWith is startServe with the variables env added to its
// environment.
func startServeWith(t *testing.T, env []string, args ...string) *serveProcess {
	t.Helper()
	p := &serveProcess{cmd: exec.Command(os.Args[0], append([]string{"serve"}, args...)...), exited: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), envRunCLI+"=1"), env...)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	deadline := time.After(45 * time.Second)
	for !strings.Contains(p.stderr.String(), "code=serve.ready") {
		select {
		case <-p.exited:
			t.Fatalf("ql serve %s exited before serving (%v): %s", strings.Join(args, " "), p.cmd.ProcessState, p.stderr.String())
		case <-deadline:
			t.Fatalf("ql serve %s did not serve within 45s: %s", strings.Join(args, " "), p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p
}

// stop sends SIGTERM and fails t unless the server drains and exits 0.
func (p *serveProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("ql serve still ran 30s after SIGTERM: %s", p.stderr.String())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("ql serve exited %d after SIGTERM, want 0: %s", code, p.stderr.String())
	}
}

// stopLosing stops srv, which runs the Run id on dir, and returns once
// the Run is lost as the stop left it: the stop records the result of the
// command it ended or, when its timeout ran out before the database took
// that result (a loaded machine), keeps it in a file for the next start,
// which records it before it serves.
func stopLosing(t *testing.T, srv *serveProcess, dir, id string) {
	t.Helper()
	srv.stop(t)
	if runJSON(t, id, "--data-dir", dir).Run.State != run.Lost {
		startServe(t, "--data-dir", dir).stop(t)
	}
	if got := runJSON(t, id, "--data-dir", dir).Run.State; got != run.Lost {
		t.Fatalf("run %s is %s once its server stopped and the next one started; want lost", id, got)
	}
}

// qlProcess runs `ql args...` in a process of its own, expecting it to
// end by itself: one still running after 15 s is killed, and fails t.
func qlProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return qlProcessIn(t, "", args...)
}

// qlProcessIn is qlProcess with stdin as its standard input.
func qlProcessIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), envRunCLI+"=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	var exit *exec.ExitError
	if err := cmd.Run(); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Errorf("ql %s still ran after 15s: it should have refused at once", strings.Join(args, " "))
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// serveRefused runs `ql-edge serve args...` in this process, expecting a
// refusal: a server that starts after all is stopped after a few seconds,
// so the test fails rather than hangs.
func serveRefused(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	code := cli.Main(ctx, Options("ql-edge"), append([]string{"serve"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// A second `ql serve` or `ql-edge serve` on a data directory a server
// uses, whatever its profile, exits 4 (it conflicts with what exists:
// that server) with one line naming the directory,
// the running server's pid and what to do, and changes nothing there: not
// even `--example`'s sample is applied. The running server is untouched
// and stops cleanly afterwards. The help of --data-dir says the same.
func TestASecondServerOnADataDirectoryIsRefusedNamingItTheFirstServersPIDAndWhatToDo(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	first := startServe(t, "--data-dir", dir)
	// The refusal is the server's last log line, with its code, as every
	// line of its log.
	refusal := fmt.Sprintf(`code=serve.failed error="another server (pid %d) is serving the data directory %s: only one server may use a data directory; `+
		`stop that server first, or give this one another --data-dir" exit_code=4`+"\n", first.cmd.Process.Pid, dir)
	for _, args := range [][]string{
		{"serve", "--data-dir", dir},
		{"serve", "--profile", "edge", "--data-dir", dir, "--example"},
	} {
		code, stdout, stderr := qlProcess(t, args...)
		if code != 4 || !strings.HasSuffix(stderr, refusal) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("ql %s beside a running server: exit %d, stdout %q, stderr %q; want exit 4 and one line ending %q", strings.Join(args, " "), code, stdout, stderr, refusal)
		}
	}
	if code, stdout, stderr := serveRefused(t, "--data-dir", dir); code != 4 || !strings.HasSuffix(stderr, refusal) || strings.Count(stderr, "\n") != 1 || stdout != "" {
		t.Errorf("ql-edge serve beside a running server: exit %d, stdout %q, stderr %q; want exit 4 and one line ending %q", code, stdout, stderr, refusal)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var projects int
	if err := db.QueryRow(`SELECT count(*) FROM projects`).Scan(&projects); err != nil {
		t.Fatal(err)
	}
	if projects != 0 {
		t.Errorf("the refused serve --example applied the sample: %d projects", projects)
	}
	owners, err := os.ReadDir(server.LayoutOf(dir).Owners)
	if err != nil {
		t.Fatal(err)
	}
	if len(owners) != 1 {
		t.Errorf("%d executor owners in the data directory; the refused servers must not have started one", len(owners))
	}
	first.stop(t)
	// The help of --data-dir gives the same exit code.
	if code, stdout, _ := ql(t, "serve", "--help"); code != 0 || !strings.Contains(stdout, "a second serve on it exits 4") {
		t.Errorf("serve --help: exit %d; want --data-dir's help to say a second serve exits 4:\n%s", code, stdout)
	}
}

// A server killed with SIGKILL, while the commands it started still run,
// leaves its lock file behind with its pid in it, but no lock: the next
// server starts at once, and the lock file is empty once it has stopped.
func TestAServerStartsOnTheDataDirectoryOfOneKilledWithSIGKILL(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", strings.Replace(goodFile, "echo hello", "sleep 300", 1)), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	killed := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var group int
	deadline := time.Now().Add(45 * time.Second)
	for db.QueryRow(`SELECT pid FROM attempts WHERE state = 'running' AND pid > 0`).Scan(&group) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("no command ran within 45s: %s", killed.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { _ = syscall.Kill(-group, syscall.SIGKILL) })
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-killed.exited
	if err := syscall.Kill(-group, 0); err != nil {
		t.Fatalf("the command (process group %d) did not outlive its server (%v): the test needs it running", group, err)
	}
	lock := server.LayoutOf(dir).Lock
	if b, err := os.ReadFile(lock); err != nil || firstLine(b) != strconv.Itoa(killed.cmd.Process.Pid) {
		t.Fatalf("the killed server's lock file holds %q (%v); want its pid %d left behind", b, err, killed.cmd.Process.Pid)
	}
	next := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	if b, err := os.ReadFile(lock); err != nil || firstLine(b) != strconv.Itoa(next.cmd.Process.Pid) {
		t.Errorf("the lock file of the server started after the kill holds %q (%v); want its pid %d", b, err, next.cmd.Process.Pid)
	}
	next.stop(t)
	if b, err := os.ReadFile(lock); err != nil || len(b) != 0 {
		t.Errorf("the lock file after a clean stop holds %q (%v); want it empty", b, err)
	}
}

// firstLine is the first line of a lock file's content b: the holder's
// pid, the rest of its record following.
func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// Every command other than serve works on a data directory while a
// server runs there: applying, listing and showing, pausing and resuming,
// running a trigger now (which that server then runs, and which says
// nothing of a missing server), tokens, retention and backup.
func TestCommandsWorkBesideARunningServer(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	running := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	defs := writeFile(t, t.TempDir(), "defs.yaml", strings.Replace(goodFile, `"*/10 * * * * *"`, `"0 0 1 1 *"`, 1))
	for _, args := range [][]string{
		{"apply", "-f", defs},
		{"triggers", "list"},
		{"triggers", "pause", "tick"},
		{"triggers", "resume", "tick"},
		{"triggers", "show", "tick"},
		{"triggers", "run", "tick"},
		{"runs", "list"},
		{"tokens", "create", "reader", "--scope", "read"},
		{"retention", "run", "--dry-run"},
		{"retention", "run"},
		{"backup", filepath.Join(t.TempDir(), "copy")},
	} {
		code, out, errOut := ql(t, append(args, "--data-dir", dir)...)
		if code != 0 {
			t.Fatalf("ql %s beside a running server: exit %d, %q %q", strings.Join(args, " "), code, out, errOut)
		}
		if strings.Contains(errOut, "no server is running") {
			t.Errorf("ql %s says no server runs beside a running one: %q", strings.Join(args, " "), errOut)
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runID string
	deadline := time.Now().Add(45 * time.Second)
	for db.QueryRow(succeededRunSQL).Scan(&runID) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the Run of `ql triggers run` did not succeed within 45s: %s", running.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, out, errOut := ql(t, "runs", "logs", runID, "--data-dir", dir); code != 0 || !strings.Contains(out, "hello") {
		t.Fatalf("runs logs beside a running server: exit %d, %q %q", code, out, errOut)
	}
	running.stop(t)
}

// A server that cannot lock its data directory says which file, why and
// what to do, and opens no database: a lock file its user may not write
// (one a server run as another user left behind), and a lock file that is
// a symbolic link, which it refuses to follow, so the file the link names
// is never written.
func TestAServerThatCannotTakeItsDataDirectoryLockSaysWhyAndWhatToDo(t *testing.T) {
	t.Parallel()
	t.Run("not writable", func(t *testing.T) {
		t.Parallel()
		dir, bin := operatorDir(t)
		data := filepath.Join(dir, "data")
		if err := os.Mkdir(data, 0o755); err != nil {
			t.Fatal(err)
		}
		lock := server.LayoutOf(data).Lock
		// As root the operator is nobody, for whom root's 0600 file is
		// closed in a directory nobody owns (a directory it may not write
		// is refused before the lock is tried); otherwise mode 0 closes it
		// to its own owner too.
		mode := os.FileMode(0o600)
		if os.Geteuid() != 0 {
			mode = 0
		} else if err := os.Chown(data, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lock, nil, mode); err != nil {
			t.Fatal(err)
		}
		// Bounded: a server that starts after all is stopped (SIGKILL),
		// so the test fails rather than hangs.
		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "serve", "--data-dir", data)
		cmd.Env = append(os.Environ(), envRunCLI+"=1")
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		}
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		stdout, stderr := out.String(), errOut.String()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || stdout != "" ||
			!strings.Contains(stderr, "cannot create or open the server lock file "+lock+"; run the server as the user that owns the data directory "+data) ||
			!strings.Contains(stderr, "permission denied") {
			t.Fatalf("serve with a lock file it may not write: %v, stdout %q, stderr %q; want exit 1 naming the file, the directory and what to do", err, stdout, stderr)
		}
		if _, err := os.Stat(server.LayoutOf(data).DB); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the refused server created its database (%v)", err)
		}
	})
	t.Run("symbolic link", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "precious")
		if err := os.WriteFile(target, []byte("keep me\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		lock := server.LayoutOf(dir).Lock
		if err := os.Symlink(target, lock); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := serveRefused(t, "--data-dir", dir)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "the server lock file "+lock+" is a symbolic link, which the server refuses to follow; remove it") {
			t.Fatalf("serve with a symbolic link for its lock file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != "keep me\n" {
			t.Fatalf("the file the link names now holds %q (%v)", b, err)
		}
		if _, err := os.Stat(server.LayoutOf(dir).DB); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the refused server created its database (%v)", err)
		}
	})
}
