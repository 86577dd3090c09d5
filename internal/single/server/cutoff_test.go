package server

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// startRefused starts a server on dir, which must be refused for reason,
// naming hint, without creating a database there.
func startRefused(t *testing.T, dir string, reason qlerror.Reason, hint string) {
	t.Helper()
	srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil {
		_ = srv.Stop(t.Context())
	}
	if !qlerror.Is(err, qlerror.Invalid) || qlerror.ReasonOf(err) != reason || !strings.Contains(err.Error(), hint) {
		t.Fatalf("a start on %s: %v; want it refused as invalid (%s), saying %q", dir, err, reason, hint)
	}
	if _, err := os.Stat(LayoutOf(dir).DB); !os.IsNotExist(err) {
		t.Fatalf("the refused start left a database file in %s (%v)", dir, err)
	}
}

// remains is a data directory holding a log and a secrets file, as a
// backup's partial copy or a restore that left out the database has them.
func remains(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	l := LayoutOf(dir)
	if err := os.MkdirAll(l.Logs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Logs, "01a24c62-f1a2-79e3-a6a3-35336e11f03f.log"), []byte("out\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Secrets, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A server refuses a backup cut off before its end, naming the check that
// tells a whole backup, rather than serving a new, empty database in it.
func TestAServerRefusesABackupCutOffBeforeItsEnd(t *testing.T) {
	t.Parallel()
	dir := remains(t)
	if err := os.Mkdir(filepath.Join(dir, PartialBackup), 0o700); err != nil {
		t.Fatal(err)
	}
	startRefused(t, dir, RefusalBackupCutOff, "test -f DIR/qinglong.db && ! test -e DIR/"+PartialBackup)
}

// A server refuses a data directory holding attempts' logs but no
// database, saying how to start a new one there deliberately; a secrets
// file alone (written by `secrets set` before the first start) is served.
func TestAServerRefusesLogsWithoutTheirDatabase(t *testing.T) {
	t.Parallel()
	dir := remains(t)
	startRefused(t, dir, RefusalLogsWithoutDatabase, "mv "+LayoutOf(dir).Logs+" "+LayoutOf(dir).Logs+".old")

	secretsOnly := t.TempDir()
	if err := os.WriteFile(LayoutOf(secretsOnly).Secrets, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: secretsOnly, Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("a start on a data directory holding only a secrets file: %v; want it served", err)
	}
	_ = srv.Stop(t.Context())
}
