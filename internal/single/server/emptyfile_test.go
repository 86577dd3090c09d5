package server

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// An empty database file (a restore or a copy cut short) is said to be
// that, never an older build's database to migrate: a read refuses it
// saying to restore a backup, a backup has nothing to copy, and a server
// started on it warns that it made a new, empty database in it (where it
// logged an upgrade of every migration, and nothing else).
func TestAnEmptyDatabaseFileIsSaidEmptyNeverAnOlderBuilds(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.EmptyFileDataDir(t)
	db := LayoutOf(dir).DB
	st, err := sqlitestore.OpenReadOnly(t.Context(), sqlitestore.Config{Path: db, NowMs: func() int64 { return time.Now().UnixMilli() }})
	if err != nil {
		t.Fatal(err)
	}
	err = st.ReadyToRead(t.Context())
	_ = st.Close()
	if err == nil || !strings.Contains(err.Error(), "holds no QingLong database") || strings.Contains(err.Error(), "older build") {
		t.Fatalf("a read of the empty file: %v; want it said empty, with a backup to restore", err)
	}
	if _, err := Backup(t.Context(), db, filepath.Join(t.TempDir(), "copy"), io.Discard); !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), "nothing to back up") {
		t.Fatalf("a backup of the empty file: %v; want nothing to back up, said so", err)
	}
	var logs lockedBuffer
	srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	if l := logs.String(); !strings.Contains(l, "code="+CodeDatabaseCreated) || !strings.Contains(l, "held no QingLong database") || strings.Contains(l, CodeMigrated) {
		t.Fatalf("the start on the empty file logged %q; want the new, empty database warned of, no upgrade", l)
	}
}

// A backup of an older build's database (the backup an upgrade asks for,
// taken once the new binary is installed) is refused before anything is
// copied, saying how to copy the file as it is — never sending the
// operator to start this build's server, which migrates it for good.
func TestABackupOfAnOlderBuildsDatabaseSaysHowToCopyItAsItIs(t *testing.T) {
	t.Parallel()
	dir := dataDirOf(t, olderBuild)
	db := LayoutOf(dir).DB
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy")
	_, err = Backup(t.Context(), db, dest, io.Discard)
	if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), "older build's database (16 of") || !strings.Contains(err.Error(), "cp -a") ||
		strings.Contains(err.Error(), "migrates it as it starts") {
		t.Fatalf("a backup of the older build's file: %v; want it refused saying how to copy it as it is", err)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Fatalf("the refused backup left %s (%v)", dest, err)
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the refused backup changed the older build's file (%v)", err)
	}
}
