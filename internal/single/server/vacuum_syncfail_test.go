package server

import (
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// A vacuum whose writes cannot be synced to disk (a sync fails, as on a
// failing disk) reports it and leaves the database whole: when its copy's
// sync fails, the file is as it was (the same file, every row) and no copy
// is left beside it; when the directory's sync fails after the copy
// replaced the file, it says the file is the whole copy and that a power
// cut may bring back the file as it was, and the file holds every row.
// Either way its integrity check finds it sound.
func TestAVacuumWhoseSyncFailsReportsItAndLeavesTheDatabaseWhole(t *testing.T) {
	// Not parallel: it replaces the package's sync while it runs, and the
	// parallel tests wait until the sequential ones are done.
	t.Cleanup(func() { fileSync = (*os.File).Sync })
	dir := installedDir(t)
	thinnedHistory(t, dir, 2_000)
	db := LayoutOf(dir).DB
	file, err := filepath.EvalSymlinks(db)
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := soundness(t, db)
	for _, c := range []struct {
		name, fails, says string
		replaced          bool
	}{
		{"the copy's sync", file + VacuumSuffix, "the vacuum's copy could not be written to disk, so it did not replace " + file + ", which is as it was", false},
		{"the directory's sync", filepath.Dir(file), "the vacuum's compacted copy replaced " + file + ", but the directory holding it could not be written to disk", true},
	} {
		before, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		// The directory's sync fails only once the copy was synced: a sync
		// of it before (a clean-stop mark removed) is none of the vacuum's
		// replacement.
		var copied atomic.Bool
		var failed atomic.Int32
		fileSync = func(f *os.File) error {
			if f.Name() == c.fails && (!c.replaced || copied.Load()) {
				failed.Add(1)
				return syscall.EIO
			}
			if f.Name() == file+VacuumSuffix {
				copied.Store(true)
			}
			return f.Sync()
		}
		_, err = Vacuum(t.Context(), db, Standalone, io.Discard)
		fileSync = (*os.File).Sync
		if failed.Load() == 0 {
			t.Fatalf("%s: the vacuum never synced %s (%v); the fault never happened", c.name, c.fails, err)
		}
		if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), c.says) {
			t.Fatalf("%s failed: the vacuum answered %v; want it to fail saying %q", c.name, err, c.says)
		}
		after, err := os.Stat(file)
		if err != nil {
			t.Fatalf("%s failed: the database file: %v", c.name, err)
		}
		if replaced := !os.SameFile(before, after); replaced != c.replaced {
			t.Errorf("%s failed: the database file replaced %v, want %v", c.name, replaced, c.replaced)
		}
		if _, err := os.Stat(file + VacuumSuffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s failed: the vacuum's copy is still beside the database: %v", c.name, err)
		}
		if n, check := soundness(t, db); n != kept || check != "ok" {
			t.Errorf("%s failed: the database holds %d Runs (integrity_check %q), want the %d it had and ok", c.name, n, check, kept)
		}
	}
}

// soundness is how many Runs the database file db holds and what its
// integrity check says, read on a connection closed before the next
// vacuum, which must find no reader holding the file.
func soundness(t *testing.T, db string) (runs int, check string) {
	t.Helper()
	conn, err := sql.Open("sqlite", db+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(t.Context(), `SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(t.Context(), `PRAGMA integrity_check`).Scan(&check); err != nil {
		t.Fatal(err)
	}
	return runs, check
}
