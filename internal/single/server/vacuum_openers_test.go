package server

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// storeOpener opens the database as a command does, returning how to
// close it.
type storeOpener struct {
	name string
	open func() (func(), error)
}

// storeOpeners are the two ways a command opens the database at db: a
// writing command's backend and a read-only command's store.
func storeOpeners(t *testing.T, db string) []storeOpener {
	return []storeOpener{
		{"a writing command", func() (func(), error) {
			b, err := OpenBackend(t.Context(), db, nil)
			if err != nil {
				return nil, err
			}
			return b.Close, nil
		}},
		{"a read-only command", func() (func(), error) {
			st, err := sqlitestore.OpenReadOnly(t.Context(), sqlitestore.Config{Path: db, NowMs: func() int64 { return time.Now().UnixMilli() }})
			if err != nil {
				return nil, err
			}
			return func() { st.Close() }, nil
		}},
	}
}

// A vacuum is refused while a command has the database open through a
// store (here a writing one and a read-only one, each in turn), so no
// process goes on writing to the old file's -wal once the new file is in
// its place; the database file is left as it was.
func TestAVacuumIsRefusedWhileACommandHasTheDatabaseOpen(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	db := LayoutOf(dir).DB
	before, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, open := range storeOpeners(t, db) {
		closeIt, err := open.open()
		if err != nil {
			t.Fatalf("%s's open: %v", open.name, err)
		}
		_, err = Vacuum(t.Context(), db, Standalone, io.Discard)
		closeIt()
		if qlerror.CodeOf(err) != qlerror.FailedPrecondition || !strings.Contains(err.Error(), "another process has the database "+db+" open") {
			t.Fatalf("a vacuum beside %s: %v; want it refused, saying another process has the database open", open.name, err)
		}
	}
	after, err := os.Stat(db)
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("a refused vacuum replaced the database file (%v)", err)
	}
	if _, err := Vacuum(t.Context(), db, Standalone, io.Discard); err != nil {
		t.Fatalf("a vacuum once the commands closed the database: %v", err)
	}
}

// While a vacuum rewrites the database no store opens it — a command is
// refused saying a vacuum runs and to run it again when it has finished —
// and a server starting on the data directory is told a vacuum, not
// another server, holds it.
func TestWhileAVacuumRunsCommandsAndServersAreToldToWaitForIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	l := LayoutOf(dir)
	dirLock, err := lockDataDir(dir, l.Lock, Holder{Vacuum: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dirLock.release() //nolint:errcheck // the test's own lock
	openers, err := sqlitestore.LockOpenersOut(l.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer openers.Release()
	for _, open := range storeOpeners(t, l.DB) {
		closeIt, err := open.open()
		if err == nil {
			closeIt()
			t.Fatalf("%s opened the database while a vacuum held it", open.name)
		}
		if qlerror.CodeOf(err) != qlerror.Unavailable || !strings.Contains(err.Error(), "a vacuum (`db vacuum`) is rewriting the database "+l.DB) || !strings.Contains(err.Error(), "run this again when the vacuum has finished") {
			t.Errorf("%s beside a vacuum: %v; want it told a vacuum is rewriting the database and to run again after it", open.name, err)
		}
	}
	_, err = lockDataDir(dir, l.Lock, Holder{Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "a vacuum (`db vacuum`, pid ") || strings.Contains(err.Error(), "another server") {
		t.Errorf("a server starting beside a vacuum: %v; want it told a vacuum holds the data directory", err)
	}
	_, err = Vacuum(t.Context(), l.DB, Standalone, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "a vacuum (`db vacuum`, pid ") {
		t.Errorf("a second vacuum beside the first: %v; want it told a vacuum holds the data directory", err)
	}
}

// A vacuumed database is in WAL mode before anything opens it again, as
// the server keeps it, so a read-only command opening it first finds
// readers that never block a writer (VACUUM INTO writes its copy in
// rollback-journal mode).
func TestAVacuumedDatabaseIsInWALModeBeforeItIsOpenedAgain(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	thinnedHistory(t, dir, 200)
	db := LayoutOf(dir).DB
	if _, err := Vacuum(t.Context(), db, Standalone, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header := make([]byte, 20)
	if _, err := io.ReadFull(f, header); err != nil {
		t.Fatal(err)
	}
	// Bytes 18 and 19 of the header are the file format's write and read
	// versions: 2 in WAL mode, 1 in rollback-journal mode.
	if header[18] != 2 || header[19] != 2 {
		t.Errorf("the vacuumed file's format versions are %d/%d; want 2/2 (WAL)", header[18], header[19])
	}
	for _, left := range []string{db + VacuumSuffix + "-wal", db + VacuumSuffix + "-shm"} {
		if _, err := os.Stat(left); err == nil {
			t.Errorf("the vacuum left its copy's %s", left)
		}
	}
}
