package singlecli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qinglong/qinglong/internal/single/server"
)

// A `backup --archive FILE` killed (SIGKILL) mid-archive leaves
// FILE.partial and its working copy of the database beside FILE; the
// next `backup --archive FILE` knows both as left by a backup of its own
// cut off (nothing holds the partial file's lock, which begins an archive
// of this command's), replaces them, says so, and writes FILE whole. A
// FILE.partial that is no archive of its own is refused and left as it
// is. The secrets file is made a named pipe, so the killed backup stops
// where it reads it: the archive begun, the working copy made.
func TestABackupArchiveKilledMidwayIsReplacedByTheNextOne(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	secrets := server.LayoutOf(dir).Secrets
	if err := syscall.Mkfifo(secrets, 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	file := filepath.Join(out, "qinglong.tar.gz")
	child := exec.Command(os.Args[0], "backup", "--archive", file, "--data-dir", dir)
	child.Env = append(os.Environ(), envRunCLI+"=1", "QL_DATA_DIR=")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	opened := make(chan *os.File, 1)
	go func() {
		// Returns once the backup opens the pipe to read it.
		if w, err := os.OpenFile(secrets, os.O_WRONLY, 0); err == nil {
			opened <- w
		}
	}()
	var pipe *os.File
	select {
	case pipe = <-opened:
	case err := <-exited:
		t.Fatalf("the backup ended before it read the secrets file: %v", err)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the backup was not killed: %v", err)
	}
	_ = pipe.Close()
	left, err := filepath.Glob(filepath.Join(out, ".qinglong-backup-download-*"))
	if info, perr := os.Stat(file + ".partial"); perr != nil || info.Size() == 0 || err != nil || len(left) != 1 {
		t.Fatalf("the killed backup left %v (%v) and working copies %v: want a begun FILE.partial and one working copy", info, perr, left)
	}

	if err := os.Remove(secrets); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secrets, []byte(`{"k": "v"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := ql(t, "backup", "--archive", file, "--data-dir", dir)
	if code != 0 || !strings.Contains(stdout, "replaced "+file+".partial, left by a backup to "+file+" cut off before its end") ||
		!strings.Contains(stdout, "removed "+left[0]+", the working copy") || !strings.Contains(stdout, "backup archive written to "+file) {
		t.Fatalf("the next backup --archive: %d\nstdout %q\nstderr %q\nwant it to replace what the killed one left, saying so", code, stdout, errOut)
	}
	if out, err := exec.Command("gzip", "-t", file).CombinedOutput(); err != nil {
		t.Errorf("the archive written over the cut-off one: %v %s", err, out)
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) != 1 {
		t.Errorf("beside the archive: %v %v; want only %s", entries, err, filepath.Base(file))
	}

	other := filepath.Join(out, "other.tar.gz")
	if err := os.WriteFile(other+".partial", []byte("not an archive\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := ql(t, "backup", "--archive", other, "--data-dir", dir); code != 2 || !strings.Contains(errOut, "is no backup archive cut off by this command") {
		t.Errorf("backup --archive beside a partial file of something else: %d %q; want it refused", code, errOut)
	}
	if b, _ := os.ReadFile(other + ".partial"); string(b) != "not an archive\n" {
		t.Errorf("the refused backup changed the partial file of something else: %q", b)
	}
}
