package singlecli

import (
	"bytes"
	"database/sql"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the account the read commands run as when the tests run as
// root, whom file modes do not stop.
const nobody = 65534

// operatorDir is a directory every user may enter, holding a copy of the
// test binary so another account can run it as ql.
func operatorDir(t *testing.T) (dir, bin string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ql-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin = filepath.Join(dir, "ql")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

// asOperator runs bin as ql in a process of its own (SQLite shares one
// process's -shm mapping between its connections), as nobody when the
// tests run as root.
func asOperator(t *testing.T, bin string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), envRunCLI+"=1")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// An operator who may read the database but not write it, nor its
// directory, lists runs and triggers, whether the server is stopped or
// running (and holding the -wal and -shm files).
func TestReadCommandsWorkOnADatabaseTheOperatorCannotWrite(t *testing.T) {
	t.Parallel()
	for _, running := range []bool{false, true} {
		dir, bin := operatorDir(t)
		data := filepath.Join(dir, "data")
		if err := os.Mkdir(data, 0o755); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(data, "qinglong.db")
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "defs.yaml", goodFile), "--data-dir", data); code != 0 {
			t.Fatalf("apply: %d %q %q", code, out, errOut)
		}
		if err := os.Chmod(db, 0o644); err != nil {
			t.Fatal(err)
		}
		files := []string{db}
		if running {
			server, err := sql.Open("sqlite", db+"?_pragma=journal_mode(WAL)")
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			if _, err := server.Exec(`SELECT count(*) FROM projects`); err != nil {
				t.Fatal(err)
			}
			files = append(files, db+"-wal", db+"-shm")
		}
		for _, f := range files {
			if err := os.Chmod(f, 0o444); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(data, 0o555); err != nil {
			t.Fatal(err)
		}
		before, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"triggers", "list", "-o", "json"}} {
			out, errOut, err := asOperator(t, bin, append(args, "--data-dir", data)...)
			// No Run was made: the list says so on stderr, which is no
			// warning about the database.
			if args[0] == "runs" && strings.HasPrefix(errOut, "no run yet: ") && strings.Count(errOut, "\n") == 1 {
				errOut = ""
			}
			if err != nil || errOut != "" {
				t.Errorf("server running %v: %v on an unwritable database: %v %q", running, args, err, errOut)
			}
			if args[0] == "triggers" && !strings.Contains(out, "tick") {
				t.Errorf("server running %v: %v: %q does not list trigger tick", running, args, out)
			}
		}
		if after, err := os.ReadFile(db); err != nil || !bytes.Equal(before, after) {
			t.Fatalf("server running %v: reading changed the database file (%v)", running, err)
		}
	}
}
