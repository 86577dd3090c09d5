package singlecli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// `db check` reads the file beside a server that serves it: it takes no
// lock the server holds (it would be refused, or wait for the server to
// stop) and passes a sound file with exit 0, both the full check and
// --quick, while the server goes on serving.
func TestDBCheckPassesASoundFileWhileItsServerServes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql-edge"), []string{"serve", "--example", "--data-dir", dir}, &out, &errOut)
	}()
	waitForSucceededRun(t, filepath.Join(dir, "qinglong.db"), exit, &errOut)
	for _, args := range [][]string{{"db", "check", "--data-dir", dir}, {"db", "check", "--quick", "--data-dir", dir}} {
		code, stdout, stderr := ql(t, args...)
		check := "integrity_check"
		if len(args) == 5 {
			check = "quick_check"
		}
		if code != 0 || !strings.HasPrefix(stdout, "ok: "+filepath.Join(dir, "qinglong.db")+" passed SQLite's "+check) || !strings.Contains(stderr, "read-only") {
			t.Fatalf("%v beside a serving server: exit %d\nstdout %q\nstderr %q", args, code, stdout, stderr)
		}
	}
	select {
	case code := <-exit:
		t.Fatalf("the server exited with %d while checked: %s", code, errOut.String())
	default:
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
}

// A file whose pages were overwritten (a failing card, a torn write) is
// reported corrupt with exit 7, naming SQLite's findings and the backup to
// restore; the check writes nothing to it.
func TestDBCheckReportsACorruptFileWithExit7AndWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	db := filepath.Join(dir, "qinglong.db")
	for _, side := range []string{"-wal", "-shm"} {
		if err := os.Remove(db + side); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 8*4096), 16*4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	corrupt, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"db", "check", "--data-dir", dir}, {"db", "check", "--quick", "--data-dir", dir}} {
		code, stdout, stderr := ql(t, args...)
		header, findings, _ := strings.Cut(stdout, "\n")
		if code != cli.ExitCorrupt || !strings.HasPrefix(header, "corrupt: "+db+" failed SQLite's") ||
			!strings.HasPrefix(findings, "  ") || len(strings.TrimSpace(strings.SplitN(findings, "\n", 2)[0])) == 0 || !strings.Contains(stdout, `restore your latest backup (docs/operations.md, "Backup and restore")`) {
			t.Fatalf("%v on a corrupt file: exit %d, want %d\nstdout %q\nstderr %q", args, code, cli.ExitCorrupt, stdout, stderr)
		}
	}
	after, err := os.ReadFile(db)
	if err != nil || !bytes.Equal(after, corrupt) {
		t.Fatalf("the check changed the file (%v)", err)
	}
	// SQLite opens a WAL file's -wal even to read it; nothing is
	// written into it.
	if info, err := os.Stat(db + "-wal"); err == nil && info.Size() != 0 {
		t.Fatalf("the check wrote %d bytes to %s-wal", info.Size(), db)
	}
}

// A --data-dir with no database in it is wrong input: exit 2, saying so.
func TestDBCheckOfADirectoryWithoutADatabaseIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := ql(t, "db", "check", "--data-dir", dir)
	if code != cli.ExitUsage || !strings.Contains(stderr, "no QingLong database at "+filepath.Join(dir, "qinglong.db")) {
		t.Fatalf("db check of an empty directory: exit %d, want %d: %q", code, cli.ExitUsage, stderr)
	}
}
