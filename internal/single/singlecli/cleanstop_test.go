package singlecli

import (
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/qinglong/qinglong/internal/single/server"
)

// checkRan matches the start's line saying it reads the whole file, and
// skipped its line saying it does not.
var (
	checkRan = regexp.MustCompile(`code=` + regexp.QuoteMeta(server.CodeIntegrityCheck) + `( |$)`)
	skipped  = regexp.MustCompile(`msg="integrity check skipped: clean stop at [^"]+" .*code=` + regexp.QuoteMeta(server.CodeIntegrityCheckSkipped) + `( |$)`)
)

// wantCheck fails t unless srv's start read the whole file, saying why
// (reason), and did not say it skipped it.
func wantCheck(t *testing.T, srv *serveProcess, reason string) {
	t.Helper()
	log := srv.stderr.String()
	if !checkRan.MatchString(log) || !strings.Contains(log, reason) || skipped.MatchString(log) {
		t.Fatalf("start log: %s\nwant the integrity check run (%s), saying %q", log, server.CodeIntegrityCheck, reason)
	}
}

// wantSkipped fails t unless srv's start skipped the check, saying so.
func wantSkipped(t *testing.T, srv *serveProcess) {
	t.Helper()
	if log := srv.stderr.String(); !skipped.MatchString(log) || checkRan.MatchString(log) {
		t.Fatalf("start log: %s\nwant the integrity check skipped after the clean stop (%s)", log, server.CodeIntegrityCheckSkipped)
	}
}

// markOf is the path of dir's clean-stop mark.
func markOf(dir string) string { return filepath.Join(dir, server.CleanStopFile) }

// A start after a clean stop of the same file does not read the whole
// file: it says the check is skipped and when the clean stop was, and the
// mark is gone before the server serves, so that a crash of this server
// leaves none.
func TestAStartAfterACleanStopOfTheSameFileSkipsTheIntegrityCheck(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	first := startServe(t, "--data-dir", dir)
	wantCheck(t, first, "no clean stop was recorded")
	first.stop(t)
	if _, err := os.Stat(markOf(dir)); err != nil {
		t.Fatalf("after a clean stop: %v; want the clean-stop mark", err)
	}
	second := startServe(t, "--data-dir", dir)
	wantSkipped(t, second)
	if _, err := os.Stat(markOf(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("while serving, the clean-stop mark: %v; want it removed by the start", err)
	}
	second.stop(t)
}

// A start after a server was killed (SIGKILL: it could not stop cleanly)
// reads the whole file, though the server before that one stopped
// cleanly: the killed server's start removed that stop's mark.
func TestAStartAfterAKilledServerReadsTheWholeFile(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	startServe(t, "--data-dir", dir).stop(t)
	killed := startServe(t, "--data-dir", dir)
	wantSkipped(t, killed)
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-killed.exited
	if ws, ok := killed.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the server ended %v; want it killed", killed.cmd.ProcessState)
	}
	next := startServe(t, "--data-dir", dir)
	wantCheck(t, next, "no clean stop was recorded")
	next.stop(t)
}

// A start on a file written, replaced or restored since its clean stop
// reads the whole file, saying the file is not the one the stop closed:
// a write with the sqlite3 library while no server ran, a copy put in its
// place (a restored backup, its time kept as cp -p keeps it).
func TestAStartOnAFileChangedSinceItsCleanStopReadsTheWholeFile(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]func(t *testing.T, db string){
		"written with the sqlite3 library": func(t *testing.T, db string) {
			raw, err := sql.Open("sqlite", db)
			if err != nil {
				t.Fatal(err)
			}
			_, err = raw.Exec(`CREATE TABLE scratch (x); DROP TABLE scratch`)
			if err := errors.Join(err, raw.Close()); err != nil {
				t.Fatal(err)
			}
		},
		"replaced by a copy with its time kept": func(t *testing.T, db string) {
			info, err := os.Stat(db)
			if err != nil {
				t.Fatal(err)
			}
			copyFile(t, db, db+".restored")
			if err := errors.Join(os.Chtimes(db+".restored", info.ModTime(), info.ModTime()), os.Rename(db+".restored", db)); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := installedDir(t)
			db := server.LayoutOf(dir).DB
			startServe(t, "--data-dir", dir).stop(t)
			before, err := os.Stat(db)
			if err != nil {
				t.Fatal(err)
			}
			change(t, db)
			after, err := os.Stat(db)
			if err != nil {
				t.Fatal(err)
			}
			if os.SameFile(before, after) && before.ModTime().Equal(after.ModTime()) {
				t.Fatal("the file is as the clean stop left it; the change did not happen")
			}
			next := startServe(t, "--data-dir", dir)
			wantCheck(t, next, "the database file is not the one the clean stop at ")
			next.stop(t)
		})
	}
}

// --integrity-check always reads the whole file after a clean stop too,
// saying so; $QL_INTEGRITY_CHECK sets it as the flag does.
func TestIntegrityCheckAlwaysReadsTheWholeFileAfterACleanStop(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	startServe(t, "--data-dir", dir).stop(t)
	flagged := startServe(t, "--data-dir", dir, "--integrity-check", "always")
	wantCheck(t, flagged, "--integrity-check is always")
	flagged.stop(t)
	startServe(t, "--data-dir", dir).stop(t)
	byEnv := startServeWith(t, []string{"QL_INTEGRITY_CHECK=always"}, "--data-dir", dir)
	wantCheck(t, byEnv, "--integrity-check is always")
	byEnv.stop(t)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(out, in)
	if err := errors.Join(err, out.Close()); err != nil {
		t.Fatal(err)
	}
}
