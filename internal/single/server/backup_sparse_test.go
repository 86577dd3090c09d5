package server

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A backup of a sparse log keeps it sparse: the copy holds the same bytes
// at the same size, in about the blocks the original takes, not its holes
// written out as zeros.
func TestABackupOfASparseLogKeepsItSparse(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "printf x")
	c := consoleClient(t)
	site.runNow(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]))
	var log string
	waitFor(t, "the Run's one-byte log", 10*time.Second, func() bool {
		logs, _ := filepath.Glob(filepath.Join(LayoutOf(site.dir).Logs, "*.log"))
		if len(logs) != 1 {
			return false
		}
		st, err := os.Stat(logs[0])
		log = logs[0]
		return err == nil && st.Size() == 1
	})
	// 64 MiB of hole, then a tail: two blocks of data.
	const hole = 64 << 20
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("tail"), hole); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy")
	if _, err := Backup(t.Context(), LayoutOf(site.dir).DB, dest, io.Discard); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(LayoutOf(dest).Logs, filepath.Base(log))
	want, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(copied)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the copied log: %d bytes, %v; want the original's %d bytes", len(got), err, len(want))
	}
	from, to := blocksOf(t, log), blocksOf(t, copied)
	if from*512 >= hole/2 {
		t.Skipf("this file system keeps no holes (the original takes %d blocks)", from)
	}
	if to > from+16 {
		t.Fatalf("the copied log takes %d blocks of 512 bytes, the original %d: its hole was written out", to, from)
	}
}

// blocksOf is the 512-byte blocks the file at path takes on its disk.
func blocksOf(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Blocks
}
