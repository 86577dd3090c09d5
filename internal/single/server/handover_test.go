package server

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// startQuiet starts a server on dir with takeBack, its log in logs.
func startHanded(t *testing.T, dir string, takeBack bool, logs *syncbuf.Buffer) (*Server, error) {
	t.Helper()
	return Start(t.Context(), Config{DataDir: dir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 1,
		TakeBack: takeBack, Logger: slog.New(slog.NewTextHandler(logs, nil))})
}

// A database handed over (`export --with-state`) is refused by a server,
// with the reason, when and how to take it back, until a server started
// with --take-back clears the mark (said at WARN); the next start then
// needs nothing.
func TestAServerRefusesADatabaseHandedOverUntilItIsTakenBack(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	h, err := HandOver(t.Context(), LayoutOf(dir).DB, Standalone, "operator")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	_, err = startHanded(t, dir, false, &logs)
	if qlerror.ReasonOf(err) != RefusalHandedOver || qlerror.CodeOf(err) != qlerror.FailedPrecondition ||
		!strings.Contains(err.Error(), "was handed over at") || !strings.Contains(err.Error(), "by operator") || !strings.Contains(err.Error(), "serve --take-back --data-dir "+dir) {
		t.Fatalf("a server on a handed-over database: %v; want it refused as %s, saying when, by whom and how to take it back", err, RefusalHandedOver)
	}
	srv, err := startHanded(t, dir, true, &logs)
	if err != nil {
		t.Fatalf("serve --take-back: %v", err)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "code="+CodeTakenBack) || !strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("the take-back's log:\n%s\nwant a WARN line with code %s", logs.String(), CodeTakenBack)
	}
	srv, err = startHanded(t, dir, false, &logs)
	if err != nil {
		t.Fatalf("a server after the take-back: %v; want it started", err)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The source is fenced both ways: a handover is refused while a server
// serves the directory (its schedule would move on after the positions
// read), and while a handover holds the directory a server is refused,
// saying an export holds it.
func TestAHandoverAndAServerNeverRunOnADataDirectoryAtOnce(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	var logs syncbuf.Buffer
	srv, err := startHanded(t, dir, false, &logs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = HandOver(t.Context(), LayoutOf(dir).DB, Standalone, "operator")
	if qlerror.ReasonOf(err) != RefusalServedAtHandover || !strings.Contains(err.Error(), "stop the server, export, then start the target") {
		t.Fatalf("a handover beside a server: %v; want it refused as %s", err, RefusalServedAtHandover)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, err := HandOver(t.Context(), LayoutOf(dir).DB, Standalone, "operator")
	if err != nil {
		t.Fatal(err)
	}
	_, err = startHanded(t, dir, true, &logs)
	if qlerror.ReasonOf(err) != RefusalHandedOver || !strings.Contains(err.Error(), "an export handing the database over") {
		t.Fatalf("a server while a handover holds the directory: %v; want it refused, naming the export", err)
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
}

// `serve --take-back` on a database never handed over starts as usual
// and says at WARN that there was nothing to take back, so that the flag
// left on a service's command line is seen.
func TestATakeBackOfADatabaseNeverHandedOverSaysThereWasNothingToTakeBack(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	srv, err := startHanded(t, installedDir(t), true, &logs)
	if err != nil {
		t.Fatalf("serve --take-back on a database never handed over: %v; want it started", err)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "code="+CodeNothingToTakeBack) || strings.Contains(logs.String(), "code="+CodeTakenBack) {
		t.Fatalf("the take-back's log:\n%s\nwant a line with code %s and none with %s", logs.String(), CodeNothingToTakeBack, CodeTakenBack)
	}
}

// A handed-over database copied to another data directory is refused
// there naming the directory the export ran on, not the copy's, and the
// take-back of the copy.
func TestTheRefusalOfACopiedHandedOverDatabaseNamesTheDirectoryTheExportRanOn(t *testing.T) {
	t.Parallel()
	src := installedDir(t)
	h, err := HandOver(t.Context(), LayoutOf(src).DB, Standalone, "operator")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(LayoutOf(src).DB)
	if err != nil {
		t.Fatal(err)
	}
	cp := t.TempDir()
	if err := os.WriteFile(LayoutOf(cp).DB, db, 0o600); err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	_, err = startHanded(t, cp, false, &logs)
	if qlerror.ReasonOf(err) != RefusalHandedOver || !strings.Contains(err.Error(), "export --with-state` on "+src+", of which this is a copy") ||
		!strings.Contains(err.Error(), "serve --take-back --data-dir "+cp) {
		t.Fatalf("a server on a copy of a handed-over database: %v; want it refused naming the export on %s and the take-back of %s", err, src, cp)
	}
	_, err = startHanded(t, src, false, &logs)
	if qlerror.ReasonOf(err) != RefusalHandedOver || strings.Contains(err.Error(), "of which this is a copy") {
		t.Fatalf("a server on the handed-over database itself: %v; want it refused without naming another directory", err)
	}
}
