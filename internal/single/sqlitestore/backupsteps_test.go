package sqlitestore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A backup copies the database a step at a time, in one read transaction:
// a writer that never waits (busy timeout 0) commits between every two
// steps, the copy still ends after one step per page (it never starts
// over), and it holds the database as of its start, none of those commits.
func TestABackupCopiesInStepsAndNeverStartsOverWhileTheServerCommits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writer, err := sql.Open("sqlite", e.path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	writer.SetMaxOpenConns(1)
	src, err := openReadPool(t.Context(), "file:"+e.path+"?mode=ro", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var pages int
	if err := src.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil || pages < 20 {
		t.Fatalf("the source has %d pages, %v; want a few dozen", pages, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	steps := 0
	var commitErr error
	// One page a step, no rest: a copy that started over at each commit
	// would never end; the bound cuts it off.
	pace := backupPace{pages: 1, rest: func(time.Duration) time.Duration { return 0 }}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if err := createPrivate(dest); err != nil {
		t.Fatal(err)
	}
	_, err = copyInSteps(ctx, src, dest, pace, func() {
		steps++
		if _, err := writer.Exec(`PRAGMA user_version = 7`); err != nil && commitErr == nil {
			commitErr = err
		}
		if steps > 4*pages {
			cancel()
		}
	})
	if commitErr != nil {
		t.Fatalf("a writer with no busy timeout could not commit between two steps: %v", commitErr)
	}
	if err != nil || steps != pages-1 {
		t.Fatalf("the copy: %v after %d steps between; want it done after %d pages, %d steps between", err, steps, pages, pages-1)
	}
	copied, err := openReadPool(t.Context(), "file:"+dest+"?mode=ro", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	var version int
	var check string
	if err := copied.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != 0 {
		t.Fatalf("the copy's user_version %d, %v; want 0, as at the copy's start", version, err)
	}
	if err := copied.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("the copy's integrity: %q, %v", check, err)
	}
}
