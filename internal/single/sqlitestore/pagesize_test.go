package sqlitestore

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// TestANewDatabaseTakesTheConfiguredPageSizeAndAnExistingOneKeepsItsOwn:
// Config.PageBytes sizes the pages of a database Open creates, also in a
// file left empty; a database that exists keeps the page size it was made
// with whatever Open is given, and PageBytesOf tells which it has.
func TestANewDatabaseTakesTheConfiguredPageSizeAndAnExistingOneKeepsItsOwn(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.db")
	if got := PageBytesOf(small, 1024); got != 1024 {
		t.Fatalf("PageBytesOf a missing file: %d, want the new database's 1024", got)
	}
	openMigrated(t, Config{Path: small, PageBytes: 1024})
	openMigrated(t, Config{Path: small, PageBytes: 8192})
	if got := filePageSize(t, small); got != 1024 {
		t.Fatalf("a database made with 1 KiB pages and opened again with 8 KiB has %d-byte pages", got)
	}
	standard := filepath.Join(dir, "standard.db")
	openMigrated(t, Config{Path: standard})
	openMigrated(t, Config{Path: standard, PageBytes: 1024})
	if got := filePageSize(t, standard); got != DefaultPageBytes {
		t.Fatalf("a database made with the default pages and opened again with 1 KiB has %d-byte pages", got)
	}
	if a, b := PageBytesOf(small, 4096), PageBytesOf(standard, 1024); a != 1024 || b != DefaultPageBytes {
		t.Fatalf("PageBytesOf says %d and %d; want what the files have, 1024 and %d", a, b, DefaultPageBytes)
	}
	if _, err := Open(t.Context(), Config{Path: filepath.Join(dir, "odd.db"), NowMs: newClock().NowMs, PageBytes: 1000}); err == nil {
		t.Fatal("a page size of 1000 bytes, not a power of two, was accepted")
	}
}

// TestTheWALBoundCountsTheFilesOwnPages: with 1 KiB pages the -wal file is
// truncated back to its bound of pages of 1 KiB, not of 4 KiB, after a
// burst.
func TestTheWALBoundCountsTheFilesOwnPages(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ql.db")
	s, err := Open(ctx, Config{Path: path, NowMs: newClock().NowMs, WALPages: MinWALPages, PageBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	const rows, rowBytes = 512, 1000
	writeBallast(t, s, rows, rowBytes)
	grown := walSize(t, path)
	if err := s.write(ctx, "one row", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO ballast VALUES (randomblob(16))`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	bound := int64(MinWALPages * 1024)
	if after := walSize(t, path); grown <= bound || after > bound {
		t.Fatalf("the -wal file holds %d bytes after a checkpoint and a commit of one row (%d after the large transaction); want at most its bound, %d", after, grown, bound)
	}
}

// openMigrated opens path with cfg, migrates it and closes it.
func openMigrated(t *testing.T, cfg Config) {
	t.Helper()
	cfg.NowMs = newClock().NowMs
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func filePageSize(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", existingFile(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
