package sqlitestore

import (
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

// TestAMigrationThatFailsOnAFullDiskLeavesTheFileAsItWas: a first start
// whose disk fills part way through the migrations applies none of them,
// says the disk is full, and the next try, with room, applies them all —
// so the file is never left with part of the stream, which the next start
// would take for an older build's database to upgrade.
func TestAMigrationThatFailsOnAFullDiskLeavesTheFileAsItWas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ql.db")
	s, err := Open(ctx, Config{Path: path, NowMs: newClock().NowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// SQLite's page limit stands in for the disk: a write past it fails
	// with SQLITE_FULL, as one on a full disk does. 40 pages hold the
	// first migrations, not all of them.
	if _, err := s.writer.ExecContext(ctx, `PRAGMA max_page_count = 40`); err != nil {
		t.Fatal(err)
	}
	applied, err := s.Migrate(ctx)
	if primaryCode(err) != sqlite3.SQLITE_FULL || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("migrating onto a full disk: applied %v, %v; want SQLITE_FULL saying the disk is full", applied, err)
	}
	history, err := readHistory(ctx, s.reader)
	if err != nil {
		t.Fatal(err)
	}
	var objects int
	if err := s.reader.QueryRowContext(ctx, qSchemaObjectCount).Scan(&objects); err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 || len(history) != 0 || objects != 0 {
		t.Fatalf("after the failed migration: %v reported applied, %d of %d in the history, %d schema objects; want the file as it was", applied, len(history), len(Stream()), objects)
	}
	if _, err := s.writer.ExecContext(ctx, `PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	if applied, err := s.Migrate(ctx); err != nil || len(applied) != len(Stream()) {
		t.Fatalf("migrating with room: applied %d of %d, %v", len(applied), len(Stream()), err)
	}
}
