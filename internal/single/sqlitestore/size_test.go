package sqlitestore

import (
	"os"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

func TestStorageConformance(t *testing.T) {
	t.Parallel()
	storetest.RunStorage(t, newFixture)
}

// The database's size on SQLite is its file's and its write-ahead log's:
// a write not yet checkpointed takes disk in the log, not the file.
func TestTheDatabaseSizeIsTheFileAndItsWriteAheadLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := e.raw.Exec(`CREATE TABLE ballast (b BLOB); INSERT INTO ballast VALUES (zeroblob(1 << 20))`); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.DatabaseSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.Stat(e.path)
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.Stat(e.path + "-wal")
	if err != nil {
		t.Fatalf("the write left no write-ahead log: %v", err)
	}
	if wal.Size() < 1<<20 || got != db.Size()+wal.Size() {
		t.Fatalf("size %d; want the file's %d plus the write-ahead log's %d (at least the 1 MiB written)", got, db.Size(), wal.Size())
	}
}
