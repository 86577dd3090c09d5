package server

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// A backup whose copy cannot be written back to disk (a sync of its
// database file fails, as on a failing disk) refuses to finish: it fails
// saying so and leaves nothing that could be taken for a whole copy, no
// qinglong.db and no partial folder.
func TestABackupWhoseSyncFailsRefusesToFinish(t *testing.T) {
	// Not parallel: it replaces the package's sync while it runs, and the
	// parallel tests wait until the sequential ones are done.
	dir := installedDir(t)
	dest := filepath.Join(t.TempDir(), "bk")
	var failed atomic.Int32
	backupSync = func(f *os.File) error {
		if filepath.Base(f.Name()) == filepath.Base(LayoutOf(dir).DB) {
			failed.Add(1)
			return syscall.EIO
		}
		return f.Sync()
	}
	t.Cleanup(func() { backupSync = (*os.File).Sync })

	_, err := Backup(t.Context(), LayoutOf(dir).DB, dest, io.Discard)
	if failed.Load() == 0 {
		t.Fatalf("the backup synced no database file (%v); the fault never happened", err)
	}
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "write the copy to disk") {
		t.Fatalf("a backup whose sync failed: %v; want it failed, saying the copy could not be written to disk", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the failed backup's directory: %v; want it removed", err)
	}
}
