package server

import (
	"database/sql"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// TestAServerThatMeetsACorruptPageHoldsItsWorkAndSaysToRestoreABackup: a
// server whose database file has pages overwritten under it (a failing
// card, a torn write) meets SQLITE_CORRUPT at its next read or write of
// them, and then admits nothing and takes no write: /readyz says 503
// database_corrupt, the metrics state says it, a write through its gate is
// refused with reason database_corrupt, and one error line says to stop it,
// run `db check` and restore a backup.
func TestAServerThatMeetsACorruptPageHoldsItsWorkAndSaysToRestoreABackup(t *testing.T) {
	t.Parallel()
	m := startMovable(t, Edge, 250*time.Millisecond, everySecond)
	waitFor(t, "the first Run", 10*time.Second, func() bool { return count(t, m.file, runsSQL) > 0 })
	raw, err := sql.Open("sqlite", m.db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	// Every committed page into the file, so the overwritten pages are
	// the ones the server reads.
	if _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	overwriteMiddlePages(t, m.db)
	// A commit of another connection makes every connection of the server
	// drop its page cache, as any other process's commit would: the
	// server then reads the overwritten pages from the file.
	if _, err := raw.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "/readyz to say database_corrupt", 15*time.Second, func() bool {
		code, reason := m.readyz(t)
		return code == http.StatusServiceUnavailable && reason == metrics.StateDatabaseCorrupt
	})
	// The fault really was SQLite's corruption error, not another failure.
	var se *sqlite.Error
	if err := m.srv.store.Corrupt(); !errors.As(err, &se) || (se.Code()&0xff != sqlite3.SQLITE_CORRUPT && se.Code()&0xff != sqlite3.SQLITE_NOTADB) {
		t.Fatalf("the store's corruption error is %v; want SQLITE_CORRUPT or SQLITE_NOTADB", err)
	}
	if got := m.srv.readinessState(); got != metrics.StateDatabaseCorrupt {
		t.Errorf("readiness state %q, want %q", got, metrics.StateDatabaseCorrupt)
	}
	if _, err := (writes{m.srv}).Admit(); qlerror.ReasonOf(err) != hold.RefusalDatabaseCorrupt {
		t.Errorf("a write through the gate: %v; want refused with reason %s", err, hold.RefusalDatabaseCorrupt)
	}
	if !m.srv.held() {
		t.Error("the server's loops are not held")
	}
	log := m.log.String()
	if n := strings.Count(log, "code="+CodeDatabaseCorrupt); n != 1 {
		t.Errorf("%d %s lines, want 1:\n%s", n, CodeDatabaseCorrupt, log)
	}
	if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "ql db check --data-dir") || !strings.Contains(log, "restore the latest backup") {
		t.Errorf("the %s line does not say what to do:\n%s", CodeDatabaseCorrupt, log)
	}
}

// overwriteMiddlePages overwrites every page of the file but the first
// (the header and the schema) and the last with a pattern no b-tree page
// has.
func overwriteMiddlePages(t *testing.T, path string) {
	t.Helper()
	const page = 4096
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xa5", page))
	for off := int64(page); off+page < info.Size(); off += page {
		if _, err := f.WriteAt(junk, off); err != nil {
			t.Fatal(err)
		}
	}
}
