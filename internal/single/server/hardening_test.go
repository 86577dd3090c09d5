package server

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

type lockedBuffer = syncbuf.Buffer

// testStopTimeout is the stop timeout of the servers whose tests assert a
// clean stop: at 1 s, three quarters of it pass before a command is
// killed, and the quarter left to record it ran out on a loaded machine.
const testStopTimeout = 5 * time.Second

func startQuiet(t *testing.T, cfg Config) (*Server, error) {
	t.Helper()
	cfg.Cadence, cfg.StopTimeout, cfg.Concurrency = time.Hour, testStopTimeout, 1
	srv, err := Start(t.Context(), cfg)
	if err == nil {
		t.Cleanup(func() {
			if err := srv.Stop(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	return srv, err
}

// A data directory others may write lets them replace the database or
// put a secrets file there first: the server warns once, at start, saying
// to chmod it. One they may only list shows them names and sizes of
// owner-only files: said once as information (a clone is 0755), so a
// newcomer's first line is not a warning.
func TestADataDirectoryOthersMayWriteIsAWarningAndOneTheyMayOnlyListIsInformation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode  os.FileMode
		level string
	}{{0o775, "WARN"}, {0o757, "WARN"}, {0o755, "INFO"}, {0o750, "INFO"}, {0o700, ""}} {
		dir := t.TempDir()
		if err := os.Chmod(dir, c.mode); err != nil {
			t.Fatal(err)
		}
		var log lockedBuffer
		if _, err := startQuiet(t, Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil))}); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for line := range strings.Lines(log.String()) {
			if strings.Contains(line, "code="+CodeDataDirShared) {
				lines = append(lines, line)
			}
		}
		if c.level == "" {
			if len(lines) != 0 {
				t.Fatalf("data directory mode %04o: %d lines, want none:\n%s", c.mode, len(lines), log.String())
			}
			continue
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "level="+c.level) || !strings.Contains(lines[0], "chmod 700") {
			t.Fatalf("data directory mode %04o: want one %s line saying chmod 700, got %q", c.mode, c.level, lines)
		}
	}
}

// A server that had to create its database says so, with the apply that
// gives it something to run: a mistyped --data-dir must not serve a new,
// empty database as quietly as the real one. A server on an existing
// database says nothing of the kind.
func TestAServerThatCreatesItsDatabaseSaysItIsEmpty(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "typo")
	for i, want := range []int{1, 0} {
		var log lockedBuffer
		cfg := Config{DataDir: dir, Binary: "ql", Logger: slog.New(slog.NewTextHandler(&log, nil))}
		cfg.Cadence, cfg.StopTimeout, cfg.Concurrency = time.Hour, testStopTimeout, 1
		srv, err := Start(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(log.String(), "created a new, empty database"); got != want {
			t.Fatalf("start %d: %d notices of a new database, want %d; log:\n%s", i+1, got, want, log.String())
		}
		if want == 1 && !strings.Contains(log.String(), "ql apply -f FILE --data-dir "+dir) {
			t.Fatalf("the notice does not say what to apply where:\n%s", log.String())
		}
	}
}

// A server started without --http-addr says its console and API are off
// and how to serve them, naming its own binary's account command; one
// that serves them says nothing of the kind.
func TestAServerWithoutHTTPSaysHowToServeItsConsole(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "127.0.0.1:0"} {
		var log lockedBuffer
		cfg := Config{DataDir: t.TempDir(), HTTPAddr: addr, Binary: "ql-edge", Logger: slog.New(slog.NewTextHandler(&log, nil))}
		cfg.Cadence, cfg.StopTimeout, cfg.Concurrency = time.Hour, testStopTimeout, 1
		srv, err := Start(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := strings.Count(log.String(), "code="+CodeHTTPOff)
		switch {
		case addr == "" && (got != 1 || !strings.Contains(log.String(), "--http-addr 127.0.0.1:8080") || !strings.Contains(log.String(), "ql-edge users create NAME --owner")):
			t.Fatalf("no --http-addr: %d lines %s, want one naming the flag and ql-edge's account command; log:\n%s", got, CodeHTTPOff, log.String())
		case addr != "" && got != 0:
			t.Fatalf("--http-addr %s: %d lines %s, want none; log:\n%s", addr, got, CodeHTTPOff, log.String())
		}
	}
}

// The commands a server's log lines tell someone to run (the account to
// create, the output of a finished Run) name its data directory, so that
// pasted elsewhere they reach its database; given none, as the quick start
// runs it, they stay short.
func TestTheCommandsAServerLogsNameItsDataDirectory(t *testing.T) {
	hints := func(t *testing.T, dataDir string) string {
		t.Helper()
		var log lockedBuffer
		srv, err := startQuiet(t, Config{DataDir: dataDir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		exit := int64(0)
		srv.finished(run.Identity{RunID: "0193a8a0-0000-7000-8000-00000000abcd"}, run.Attempt{RunID: "0193a8a0-0000-7000-8000-00000000abcd", State: run.AttemptSucceeded, ExitCode: &exit, LogPath: "a.log"}, run.Succeeded)
		return log.String()
	}
	t.Run("given --data-dir", func(t *testing.T) {
		dir := t.TempDir()
		log := hints(t, dir)
		for _, want := range []string{"`ql users create NAME --owner --data-dir " + dir + "`", "`ql runs logs 0193a8a0-0000-7000-8000-00000000abcd --data-dir " + dir + "`"} {
			if !strings.Contains(log, want) {
				t.Errorf("the log does not say %s:\n%s", want, log)
			}
		}
	})
	t.Run("given a --data-dir the shell would split", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "my $data")
		log := hints(t, dir)
		for _, want := range []string{"`ql users create NAME --owner --data-dir '" + dir + "'`", "`ql runs logs 0193a8a0-0000-7000-8000-00000000abcd --data-dir '" + dir + "'`"} {
			if !strings.Contains(log, want) {
				t.Errorf("the log does not say %s:\n%s", want, log)
			}
		}
	})
	t.Run("in the working directory", func(t *testing.T) {
		t.Chdir(t.TempDir())
		log := hints(t, ".")
		for _, want := range []string{"`ql users create NAME --owner`", "`ql runs logs 0193a8a0-0000-7000-8000-00000000abcd`"} {
			if !strings.Contains(log, want) {
				t.Errorf("the log does not say %s:\n%s", want, log)
			}
		}
	})
}

// A server-wide account that does not exist stops the server at start,
// before it runs anything.
func TestAnUnknownServerRunAsAccountFailsTheStart(t *testing.T) {
	t.Parallel()
	_, err := startQuiet(t, Config{DataDir: t.TempDir(), RunAs: task.RunAs{User: "no-such-user-ql"},
		Logger: slog.New(slog.NewTextHandler(&lockedBuffer{}, nil))})
	if !qlerror.Is(err, qlerror.NotFound) || !strings.Contains(err.Error(), `runAs user "no-such-user-ql" does not exist`) {
		t.Fatalf("start with --run-as no-such-user-ql: %v; want not found (a name of nothing, exit 1) naming the account", err)
	}
	if err := (Config{RunAs: task.RunAs{User: "a b"}}).WithDefaults().Validate(); !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "--run-as") {
		t.Fatalf("a malformed --run-as: %v; want an invalid setting naming --run-as", err)
	}
}

// A task without a runAs of its own that would run as root, or as the
// owner of the data directory, could read the database and the secrets
// file: the server says so once at start, naming --run-as, and starts
// all the same. A --run-as account that owns nothing there is quiet.
func TestTasksThatWouldRunAsRootOrTheDataDirectoryOwnerAreWarnedAboutAtStart(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("switching the tasks' account needs root")
	}
	for _, c := range []struct {
		name     string
		runAs    string
		dirOwner int
		warn     int
		who      string
	}{
		{"no --run-as, as root", "", 0, 1, "root (uid 0)"},
		{"--run-as an account owning nothing here", "nobody", 0, 0, ""},
		{"--run-as the data directory's owner", "nobody", 65534, 1, "uid 65534, the data directory's owner"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chown(dir, c.dirOwner, -1); err != nil {
				t.Fatal(err)
			}
			var log lockedBuffer
			if _, err := startQuiet(t, Config{DataDir: dir, RunAs: task.RunAs{User: c.runAs}, Logger: slog.New(slog.NewTextHandler(&log, nil))}); err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(log.String(), "code="+CodeTasksNotIsolated); got != c.warn {
				t.Fatalf("%d warnings, want %d; log:\n%s", got, c.warn, log.String())
			}
			level := "level=INFO"
			if c.dirOwner == 0 && c.runAs == "" {
				level = "level=WARN"
			}
			if c.warn == 1 && !strings.Contains(log.String(), level+" msg=\"tasks without") {
				t.Fatalf("the line is not at %s (a warning as root, information as the data directory's owner):\n%s", level, log.String())
			}
			if c.warn == 1 && (!strings.Contains(log.String(), "--run-as USER") || !strings.Contains(log.String(), c.who) || !strings.Contains(log.String(), "secrets file")) {
				t.Fatalf("the warning does not name the account (%s), the risk and --run-as USER:\n%s", c.who, log.String())
			}
		})
	}
}

// The -wal and -shm files an older build left readable by others (the
// WAL holds the latest writes: scripts, environments, token hashes) are
// narrowed to the database file's 0600 as the server opens the database,
// and it says so once; the next start, finding them narrow, says nothing.
func TestLeftoverWideWALAndSHMFilesAreNarrowedAtOpenAndSaidOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	db := LayoutOf(dir).DB
	for _, p := range []string{db + "-wal", db + "-shm"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []int{1, 0} {
		var log lockedBuffer
		srv, err := Start(t.Context(), Config{DataDir: dir, Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{db + "-wal", db + "-shm"} {
			if info, err := os.Stat(p); err == nil && info.Mode().Perm() != 0o600 {
				t.Errorf("start %d: %s has mode %04o, want 0600", i+1, p, info.Mode().Perm())
			}
		}
		if got := strings.Count(log.String(), "code="+CodeDBFilesNarrowed); got != want {
			t.Errorf("start %d: %d lines %s, want %d:\n%s", i+1, got, CodeDBFilesNarrowed, want, log.String())
		}
		if want == 1 && !regexp.MustCompile(`level=WARN msg="narrowed [^"]*-wal and [^"]*-shm to the database file's permissions[^"]*" code=`+CodeDBFilesNarrowed).MatchString(log.String()) {
			t.Errorf("the line is not a warning naming both files:\n%s", log.String())
		}
		if err := srv.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
