package server

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// A page overwritten after a clean stop (a failing card, a torn write, a
// hand that then set the file's time back) is still caught: the file's
// change time, which no tool sets back, no longer matches the stop's mark,
// so the start reads the whole file, says why, and refuses it.
func TestACorruptPageWrittenAfterACleanStopIsCaughtThoughTheFileKeepsItsTime(t *testing.T) {
	t.Parallel()
	cfg := stoppedEdge(t)
	dir := cfg.DataDir
	if _, err := os.Stat(filepath.Join(dir, CleanStopFile)); err != nil {
		t.Fatalf("after a clean stop: %v; want its mark", err)
	}
	path := filepath.Join(dir, "qinglong.db")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	overwriteRunsPage(t, path)
	if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the overwritten file is %v, %d bytes, %v; want the same file, size and time as the stop left (%d bytes, %v)", after.Sys(), after.Size(), after.ModTime(), before.Size(), before.ModTime())
	}

	var log lockedBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	srv, err := Start(t.Context(), cfg)
	if err == nil {
		srv.Stop(t.Context()) //nolint:errcheck // the start is what failed the test
		t.Fatal("a server started on a corrupt database after a clean stop")
	}
	var nr *sqlitestore.NotReadyError
	if !errors.As(err, &nr) || nr.Check != sqlitestore.CheckIntegrity {
		t.Fatalf("start on a page overwritten after a clean stop: %v; want it refused as not ready (integrity)", err)
	}
	if got := log.String(); !strings.Contains(got, "code="+CodeIntegrityCheck+" ") || !strings.Contains(got, "the database file is not the one the clean stop at ") {
		t.Fatalf("start log: %s\nwant the check run, saying the file is not the one the clean stop closed", got)
	}
}

// A command that writes to the database with no server on it (ql apply,
// ql retention run) removes the clean-stop mark before it opens the file,
// so the next start reads the whole file whatever the command left.
func TestAWriteCommandWithNoServerRemovesTheCleanStopMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := Start(t.Context(), Config{DataDir: dir, StopTimeout: testStopTimeout, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, CleanStopFile)
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("after a clean stop: %v; want its mark", err)
	}
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(mark)
	b.Close()
	if !errors.Is(statErr, os.ErrNotExist) {
		t.Fatalf("the mark once a command opened the file: %v; want it removed", statErr)
	}
}

// The first start of another build (an upgrade, a downgrade) reads the
// whole file though the last stop was clean: its migrations may read
// pages no start of it checked. A second start of the same build skips it.
func TestTheFirstStartOfAnotherBuildReadsTheWholeFileAfterACleanStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := func(version string) string {
		t.Helper()
		var log lockedBuffer
		srv, err := Start(t.Context(), Config{DataDir: dir, StopTimeout: testStopTimeout, Version: version, Commit: "c0ffee",
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		return log.String()
	}
	start("1.0.0")
	if got := start("1.1.0"); !strings.Contains(got, "code="+CodeIntegrityCheck+" ") || !strings.Contains(got, "this is the first start of build 1.1.0 c0ffee on it") {
		t.Fatalf("start log of the new build: %s\nwant the check run, saying it is the first start of this build", got)
	}
	if got := start("1.1.0"); !strings.Contains(got, "code="+CodeIntegrityCheckSkipped+" ") || strings.Contains(got, "code="+CodeIntegrityCheck+" ") {
		t.Fatalf("start log of the same build again: %s\nwant the check skipped", got)
	}
}
