package server

import (
	"bytes"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// A database with a page overwritten (a failing card, a torn write) is
// served by no server: its start refuses it, naming SQLite's finding and a
// backup as the remedy, where it used to serve it and run commands whose
// results it could not record.
func TestAServerRefusesACorruptDatabaseSayingToRestoreABackup(t *testing.T) {
	t.Parallel()
	cfg := stoppedEdge(t)
	overwriteRunsPage(t, filepath.Join(cfg.DataDir, "qinglong.db"))

	srv, err := Start(t.Context(), cfg)
	if err == nil {
		srv.Stop(t.Context()) //nolint:errcheck // the start is what failed the test
		t.Fatal("a server started on a corrupt database")
	}
	var nr *sqlitestore.NotReadyError
	if !errors.As(err, &nr) || nr.Check != sqlitestore.CheckIntegrity || !strings.Contains(err.Error(), "restore it from a backup") {
		t.Fatalf("start on a corrupt database: %v; want it refused as not ready (integrity), saying to restore a backup", err)
	}
}

// stoppedEdge starts an edge server on a new data directory and stops it
// cleanly, returning its configuration for the start a test then makes.
func stoppedEdge(t *testing.T) Config {
	t.Helper()
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "edge"), Profile: Edge, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout,
		Logger: slog.New(slog.DiscardHandler)}
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// overwriteRunsPage overwrites the runs table's root page of the closed
// database at path, as a failing card or a torn write would.
func overwriteRunsPage(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	var root, pageSize int64
	err = errors.Join(
		raw.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'runs'`).Scan(&root),
		raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize),
		func() error { _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); return err }(),
		raw.Close())
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(pageSize)), (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
