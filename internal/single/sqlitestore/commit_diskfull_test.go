package sqlitestore

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A COMMIT a full disk refused wrote nothing (the disk refused the WAL
// frames before the commit frame), so its decisions fail as disk_full,
// the reason an operator can act on, not outcome_unknown, which says
// COMMIT's reply was lost. Any other failed COMMIT stays outcome_unknown.
// The full disk is SQLite's own SQLITE_FULL, met on a file at its page
// limit.
func TestACommitAFullDiskRefusedIsDiskFullNotOutcomeUnknown(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "full.db")+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA max_page_count = 4`); err != nil {
		t.Fatal(err)
	}
	_, full := db.Exec(`INSERT INTO t VALUES (zeroblob(65536))`)
	if full == nil {
		t.Fatal("a 64 KiB row fitted a file of 4 pages; the full disk never landed")
	}
	if got := commitFailed(full); got != schedule.ReasonDiskFull {
		t.Errorf("a COMMIT the full disk refused (%v) is %s, want disk_full", full, got)
	}
	if got := commitFailed(errors.New("disk I/O error")); got != schedule.ReasonOutcomeUnknown {
		t.Errorf("another failed COMMIT is %s, want outcome_unknown", got)
	}
}
