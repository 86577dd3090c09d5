package privatefile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A -wal or -shm file that lets in more than its database file is
// narrowed to the database file's permissions, whatever those are; one
// no wider, a missing one and a missing database are left alone.
func TestCompanionsWiderThanTheirDatabaseAreNarrowedToIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		db, wal, want os.FileMode
		narrowed      bool
	}{
		{0o600, 0o644, 0o600, true},
		{0o640, 0o664, 0o640, true},
		{0o600, 0o600, 0o600, false},
		{0o644, 0o644, 0o644, false},
	} {
		dir := t.TempDir()
		db := filepath.Join(dir, "q.db")
		for p, mode := range map[string]os.FileMode{db: c.db, db + "-wal": c.wal} {
			if err := os.WriteFile(p, nil, mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
		}
		got, err := NarrowCompanions(db)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{db + "-wal"}; c.narrowed != slices.Equal(got, want) || (!c.narrowed && len(got) != 0) {
			t.Errorf("database %04o, -wal %04o: narrowed %v, want narrowed=%v", c.db, c.wal, got, c.narrowed)
		}
		info, err := os.Stat(db + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != c.want {
			t.Errorf("database %04o, -wal %04o: -wal is now %04o, want %04o", c.db, c.wal, info.Mode().Perm(), c.want)
		}
	}
	if got, err := NarrowCompanions(filepath.Join(t.TempDir(), "missing.db")); err != nil || len(got) != 0 {
		t.Fatalf("a missing database: %v %v, want nothing done", got, err)
	}
}
