package singlecli

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/server"
)

// A write command on a large file no server serves reads it whole first,
// as a start does, and says so on stderr before it begins, naming the file
// and its size: on a file of gigabytes that read takes a minute, which the
// command spent silent.
func TestAWriteCommandSaysItChecksTheWholeFileBeforeReadingIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	grow(t, filepath.Join(dir, "qinglong.db"), server.SayCheckBytes)
	code, stdout, stderr := ql(t, "retention", "run", "--dry-run", "--data-dir", dir)
	want := "ql-edge: checking " + filepath.Join(dir, "qinglong.db") + " ("
	if code != 0 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "quick_check") || !strings.HasPrefix(stdout, "policy: ") {
		t.Fatalf("retention run --dry-run: exit %d\nstdout %q\nstderr %q\nwant stderr to start %q, naming quick_check", code, stdout, stderr, want)
	}
}

// A write command beside the server that serves the file does not read it
// whole again: the server read it as it started and holds itself on the
// first corrupt page it meets. Shown with a page of a table neither the
// server nor the command reads overwritten: a whole-file read would find
// it and refuse the command.
func TestAWriteCommandBesideItsServerDoesNotReadTheWholeFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--example", "--data-dir", dir}, &out, &errOut)
	}()
	db := filepath.Join(dir, "qinglong.db")
	waitForSucceededRun(t, db, exit, &errOut)
	overwriteUnreadPage(t, db)

	code, stdout, stderr := ql(t, "retention", "run", "--dry-run", "--data-dir", dir)
	if code != 0 || strings.Contains(stderr, "quick_check") || !strings.HasPrefix(stdout, "policy: ") {
		t.Fatalf("retention run --dry-run beside its server: exit %d\nstdout %q\nstderr %q\nwant the dry run, no whole-file check", code, stdout, stderr)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
}

// grow makes the file at least size bytes long with free pages, which a
// table filled and dropped leaves behind under incremental auto-vacuum.
func grow(t *testing.T, db string, size int64) {
	t.Helper()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	for _, q := range []string{`CREATE TABLE pad (b BLOB)`, fmt.Sprintf(`INSERT INTO pad VALUES (zeroblob(%d))`, size), `DROP TABLE pad`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// overwriteUnreadPage folds the WAL into the file and overwrites the root
// page of console_users (no console login here, so nothing reads it).
func overwriteUnreadPage(t *testing.T, db string) {
	t.Helper()
	raw, err := sql.Open("sqlite", db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var root, pageSize int64
	var busy, logPages, checkpointed int
	if err := raw.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'console_users'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`PRAGMA wal_checkpoint(FULL)`).Scan(&busy, &logPages, &checkpointed); err != nil || busy != 0 || logPages != checkpointed {
		t.Fatalf("checkpoint: busy %d, %d of %d pages, %v", busy, checkpointed, logPages, err)
	}
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(pageSize)), (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
