package sqlitestore

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The database holds every task's script and environment: the file and the
// -wal and -shm files SQLite adds are the owner's only, whatever the umask.
// Not parallel: the umask is process-wide.
func TestANewDatabaseAndItsWALAndSHMAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	path := filepath.Join(t.TempDir(), "ql.db")
	st, err := Open(t.Context(), Config{Path: path, NowMs: func() int64 { return time.Now().UnixMilli() }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatalf("%s: %v; the database should be in WAL mode with both files present", f, err)
		}
		if perm := info.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %04o; want 0600", filepath.Base(f), perm)
		}
	}
}

// An existing database keeps the mode its operator gave it (a group that
// may read it, say).
func TestAnExistingDatabaseKeepsItsMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ql.db")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	st, err := Open(t.Context(), Config{Path: path, NowMs: func() int64 { return time.Now().UnixMilli() }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Fatalf("mode after open: %v, %v; want 0640 kept", info.Mode().Perm(), err)
	}
}
