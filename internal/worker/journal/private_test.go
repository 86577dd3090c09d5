package journal

import (
	"os"
	"testing"
)

// The journal's WAL holds the lease tokens it records until a checkpoint
// moves them into the database file, and its shared-memory index reads
// as much of them: both are the worker's own from their creation, as the
// database file is. Files a build that made them 0644 left behind are
// narrowed at the next open.
func TestTheJournalsWALAndSharedMemoryFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/data"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	left := dir + "/" + FileName + "-shm"
	if err := os.WriteFile(left, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.NewOffer(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		info, err := os.Stat(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %04o; want 0600", name, info.Mode().Perm())
		}
	}
}
