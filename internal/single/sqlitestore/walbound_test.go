package sqlitestore

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWALIsTruncatedBackToItsBoundAfterACheckpoint: a transaction larger
// than the bound makes the -wal file as large as it, and once a checkpoint
// has copied it back the next commit truncates the file to the bound again,
// so a burst leaves no -wal file of its size behind on a small disk.
func TestWALIsTruncatedBackToItsBoundAfterACheckpoint(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ql.db")
	s, err := Open(ctx, Config{Path: path, NowMs: newClock().NowMs, WALPages: MinWALPages})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// One transaction of about 2 MiB: no checkpoint can cut it short, so
	// the WAL takes all of it.
	const rows, rowBytes = 512, 4000
	writeBallast(t, s, rows, rowBytes)
	grown := walSize(t, path)
	if grown < rows*rowBytes {
		t.Fatalf("the -wal file holds %d bytes after a transaction of %d; the test wrote less than it meant to", grown, rows*rowBytes)
	}
	if err := s.write(ctx, "one row", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO ballast VALUES (randomblob(16))`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	bound := int64(MinWALPages * DefaultPageBytes)
	if after := walSize(t, path); after > bound {
		t.Fatalf("the -wal file holds %d bytes after a checkpoint and a commit of one row (%d after the large transaction); want at most its bound, %d", after, grown, bound)
	}
}

func walSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// writeBallast writes, in one transaction, a table of rows random blobs
// of rowBytes each: a transaction no checkpoint can cut short, so the WAL
// takes all of it.
func writeBallast(t *testing.T, s *Store, rows, rowBytes int) {
	t.Helper()
	ctx := t.Context()
	if err := s.write(ctx, "ballast", routine, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE ballast (b BLOB)`); err != nil {
			return err
		}
		for range rows {
			if _, err := tx.ExecContext(ctx, `INSERT INTO ballast VALUES (randomblob(?))`, rowBytes); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
