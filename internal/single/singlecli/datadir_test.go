package singlecli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// refusedWith reports whether stderr is the one line that says command
// was refused with msg: a server's is the last line of its log (code
// serve.failed and the exit code, in the text format), so that a log
// shipper keeps it; every other command's is a plain `ql: …` line.
func refusedWith(stderr, command, msg string, exit int) bool {
	if command != "serve" {
		return stderr == "ql: "+msg+"\n"
	}
	return strings.Count(stderr, "\n") == 1 &&
		strings.HasSuffix(stderr, fmt.Sprintf(" code=serve.failed error=%s exit_code=%d\n", strconv.Quote(msg), exit))
}

// dataDirCommands are the commands given a data directory in the tests of
// its checks, each as it is typed before --data-dir: every kind of opening
// (serve, apply's create, a write of an existing database, a read, backup).
func dataDirCommands(t *testing.T) [][]string {
	defs := writeFile(t, t.TempDir(), "defs.yaml", goodFile)
	return [][]string{
		{"serve"},
		{"apply", "-f", defs},
		{"tokens", "create", "ci", "--scope", "read"},
		{"users", "create", "alice", "--password-stdin"},
		{"triggers", "pause", "tick"},
		{"runs", "list"},
		{"backup", filepath.Join(t.TempDir(), "copy")},
	}
}

// Every command that uses the embedded database says what is wrong with a
// data directory one way, and exits 2 (the path given is wrong input):
// a file given as the directory (only the database file itself has its
// directory offered instead: the directory of /etc/passwd is no data
// directory either), a directory under a file, and a
// directory standing where the database file should be, which no command
// reports as a read-only or unopenable database. None of them creates
// anything there.
func TestEveryCommandNamesAWrongDataDirectoryOneWayAndExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writeFile(t, dir, "afile", "not a directory\n")
	dbFile := writeFile(t, dir, "qinglong.db", "")
	dbDir := filepath.Join(dir, "dbdir")
	if err := os.MkdirAll(filepath.Join(dbDir, "qinglong.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dataDir, want string }{
		{"a file", file, "--data-dir " + file + " is a file, not a directory; give the directory holding qinglong.db (the data directory `serve` or `apply` made)"},
		{"under a file", filepath.Join(file, "sub"), "--data-dir " + filepath.Join(file, "sub") + " lies under " + file + ", which is a file, not a directory; give the directory holding qinglong.db (the data directory `serve` or `apply` made)"},
		{"the database file", dbFile, "--data-dir " + dbFile + " is a file, not a directory; give the directory holding qinglong.db: --data-dir " + dir},
		{"a directory for the database", dbDir, filepath.Join(dbDir, "qinglong.db") + " is a directory, where the database file is wanted; move it away, or give the --data-dir of a database"},
	} {
		for _, args := range dataDirCommands(t) {
			code, stdout, stderr := qlProcessIn(t, "a long enough password\n", append(args, "--data-dir", c.dataDir)...)
			if code != 2 || stdout != "" || !refusedWith(stderr, args[0], c.want, 2) {
				t.Errorf("%s, ql %s: exit %d, stdout %q, stderr %q; want exit 2 and the refusal %q", c.name, args[0], code, stdout, stderr, c.want)
			}
		}
	}
	if entries, err := os.ReadDir(filepath.Join(dbDir, "qinglong.db")); err != nil || len(entries) != 0 {
		t.Errorf("the directory standing for the database holds %v (%v); want it left empty", entries, err)
	}
}

// A mistyped --data-dir is never made into a new database by a command
// that only uses one: tokens create and users create, as every command
// but serve and apply, say there is no database there and exit 1, and
// leave no directory behind; apply (which creates the database on
// purpose) still does.
func TestACommandThatOnlyUsesADatabaseNeverCreatesOneAtAMistypedDataDir(t *testing.T) {
	t.Parallel()
	for _, args := range dataDirCommands(t) {
		if args[0] == "serve" || args[0] == "apply" {
			continue
		}
		typo := filepath.Join(t.TempDir(), "typo")
		code, stdout, stderr := qlProcessIn(t, "a long enough password\n", append(args, "--data-dir", typo)...)
		want := "ql: no QingLong database at " + filepath.Join(typo, "qinglong.db") + ": start with `ql serve --data-dir " + typo + "` or `ql apply -f FILE --data-dir " + typo + "` there"
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("ql %s at a mistyped --data-dir: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(args[:2], " "), code, stdout, stderr, want)
		}
		if _, err := os.Stat(typo); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ql %s at a mistyped --data-dir made it (%v)", strings.Join(args[:2], " "), err)
		}
	}
}

// A data directory this user may not write, or may not make, is refused
// one way by every command that writes, exit 2, before anything is
// opened: `ql apply` never says it created a database it then failed to
// create, whether the directory was given or is the working directory;
// reading the same directory still works.
func TestACommandThatCannotWriteTheDataDirectorySaysSoAndNeverThatItCreatedTheDatabase(t *testing.T) {
	t.Parallel()
	dir, bin := operatorDir(t)
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	defs := writeFile(t, dir, "defs.yaml", goodFile)
	if err := os.Chmod(defs, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		// As root the operator is nobody, for whom root's 0755 directory
		// is closed to writes already.
		if err := os.Chmod(locked, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	notWritable := "the data directory " + locked + " is not writable by this user (or lies on a read-only file system), and the database, its logs and lock files are written there; run as the directory's owner, or give a --data-dir this user may write"
	fresh := filepath.Join(locked, "new")
	cannotCreate := "cannot create the data directory " + fresh + ": " + locked + " is not writable by this user (or lies on a read-only file system); create " + fresh + " as a user who may, owned by this one, or give a --data-dir this user may write"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "-f", defs, "--data-dir", locked}, notWritable},
		{[]string{"serve", "--data-dir", locked}, notWritable},
		{[]string{"apply", "-f", defs, "--data-dir", fresh}, cannotCreate},
		{[]string{"serve", "--data-dir", fresh}, cannotCreate},
	} {
		stdout, stderr, err := asOperator(t, bin, c.args...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || stdout != "" || !refusedWith(stderr, c.args[0], c.want, 2) {
			t.Errorf("ql %s: %v, stdout %q, stderr %q; want exit 2 and the refusal %q", strings.Join(c.args, " "), err, stdout, stderr, c.want)
		}
	}
	// The working directory, where apply would create the database and
	// say so.
	cmd := exec.Command(bin, "apply", "-f", defs)
	cmd.Dir = locked
	cmd.Env = append(os.Environ(), envRunCLI+"=1", "QL_DATA_DIR=")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || strings.Contains(string(out), "created") {
		t.Errorf("ql apply in a working directory it may not write: %v, %q; want exit 2 and nothing said created", err, out)
	}
	if _, err := os.Stat(filepath.Join(locked, "qinglong.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a database was made in the directory the operator may not write (%v)", err)
	}
}
