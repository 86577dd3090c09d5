package singlecli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/single/server"
)

// A backup served at another path after its server crashed ends the log of
// its lost attempt in its own directory, and records that file's size: the
// attempt's row names the log where the original server created it, which
// the copy never writes (nor misses when the original directory is gone).
func TestABackupServedAtAnotherPathEndsItsOwnLostLogNeverTheOriginals(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	srv, id := runPrintingStarted(t, dir, "copied")
	copied := filepath.Join(t.TempDir(), "copy")
	if code, out, errOut := ql(t, "backup", copied, "--data-dir", dir); code != 0 {
		t.Fatalf("backup: %d %q %q", code, out, errOut)
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.exited

	restored := startServe(t, "--data-dir", copied, "--cadence", "250ms")
	waitState(t, copied, id, run.Lost)
	restored.stop(t)
	attempt := runJSON(t, id, "--data-dir", copied).Attempts[0]
	want := "started\n" + process.LostLine(false)
	own, err := os.ReadFile(filepath.Join(server.LayoutOf(copied).Logs, attempt.ID+".log"))
	if err != nil || string(own) != want || attempt.LogBytes != int64(len(want)) {
		t.Fatalf("the copy's log: %q (%v), its recorded size %d; want %q and its %d bytes", own, err, attempt.LogBytes, want, len(want))
	}
	original, err := os.ReadFile(filepath.Join(server.LayoutOf(dir).Logs, attempt.ID+".log"))
	if err != nil || string(original) != "started\n" {
		t.Fatalf("the original directory's log after the copy's recovery: %q (%v); want it untouched, started", original, err)
	}

	// The original's own recovery ends the command the killed server left.
	again := startServe(t, "--data-dir", dir, "--cadence", "250ms")
	waitState(t, dir, id, run.Lost)
	again.stop(t)
}
