package server

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

func get(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A started server answers /livez and /readyz, runs what it admits, and
// stops within its stop timeout even with a command still running — which
// it kills and records lost — saying when it starts to stop and when it
// has stopped.
func TestServerRunsAdmissionsAndStopsWithinItsTimeout(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 1, "sleep 300")
	logs := &lockedBuffer{}
	srv, err := Start(t.Context(), Config{DataDir: dataDir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond,
		StopTimeout: 4 * time.Second, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + srv.Addr()
	for _, path := range []string{"/livez", "/readyz"} {
		if code, err := get(base + path); err != nil || code != http.StatusOK {
			t.Fatalf("%s: %d, %v", path, code, err)
		}
	}
	db := observer(t, dataDir)
	waitFor(t, "the command to run", time.Minute, func() bool { return count(t, db, runningSQL) == 1 })
	var runID string
	if err := db.QueryRow(`SELECT run_id FROM attempts WHERE state = 'running'`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The stop timeout leaves the lost result a second to be recorded
	// after SIGKILL (at three quarters of it), enough on a loaded machine; the
	// slack is for the same. The command sleeps 300 s, so a stop that waited
	// for it instead of killing it still fails here.
	if took := time.Since(start); took > 8*time.Second {
		t.Fatalf("stop took %s with a 4s stop timeout", took)
	}
	if _, err := get(base + "/livez"); err == nil {
		t.Fatal("the HTTP server still answers after stop")
	}
	if l := logs.String(); !strings.Contains(l, "code="+CodeStopping) || !strings.Contains(l, "code="+CodeStopped) {
		t.Fatalf("the stop logged no %s and %s lines:\n%s", CodeStopping, CodeStopped, l)
	}
	d := readRun(t, dataDir, runID)
	if d.Run.State != run.Lost || d.Attempts[0].ErrorCode != "server_stopped" {
		t.Fatalf("the command running at stop left its run %s (attempt code %q), want lost with server_stopped: nobody cancelled it", d.Run.State, d.Attempts[0].ErrorCode)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatalf("second stop: %v", err)
	}
}

// A server that cannot take its HTTP address fails having done nothing:
// no attempt recovered, no occurrence decided, no command started.
func TestAServerThatCannotBindItsAddressFailsHavingDoneNothing(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 1, "sleep 300")
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	srv, err := Start(t.Context(), Config{DataDir: dataDir, HTTPAddr: taken.Addr().String(), Cadence: 250 * time.Millisecond,
		StopTimeout: 4 * time.Second, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil {
		stopAtCleanup(t, srv)
		t.Fatal("the server started on an address another listener holds")
	}
	db := observer(t, dataDir)
	if n := count(t, db, `SELECT count(*) FROM runs`); n != 0 {
		t.Fatalf("the server that could not bind admitted %d runs", n)
	}
	if n := count(t, db, `SELECT count(*) FROM trigger_schedules WHERE next_fire_at_ms IS NOT NULL`); n != 0 {
		t.Fatalf("the server that could not bind decided %d schedule rows", n)
	}
}

// A first start on a new data directory that cannot take its address (the
// HTTP one or the metrics one) leaves nothing behind: no database, no
// lock file, not even the directory, so a retry with a free address is a
// first start again. Its error names the address, the flag and what to do.
// A directory that existed is left as it was, with no database made in it.
func TestAFirstStartThatCannotBindItsAddressLeavesNoDataDirectoryBehind(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for _, c := range []struct {
		flag string
		cfg  func(dir string) Config
	}{
		{"--http-addr", func(dir string) Config { return Config{DataDir: dir, HTTPAddr: addr} }},
		{"--metrics-addr", func(dir string) Config { return Config{DataDir: dir, MetricsAddr: addr} }},
	} {
		dir := filepath.Join(t.TempDir(), "new")
		cfg := c.cfg(dir)
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		srv, err := Start(t.Context(), cfg)
		if err == nil {
			stopAtCleanup(t, srv)
			t.Fatalf("%s: the server started on an address another listener holds", c.flag)
		}
		want := "cannot listen on " + addr + " (" + c.flag + "): another process listens there already; stop it, or choose a free address with " + c.flag
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want it to say %q", c.flag, err, want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the failed first start left %s behind (%v)", c.flag, dir, err)
		}
	}
	existing := t.TempDir()
	if _, err := Start(t.Context(), Config{DataDir: existing, HTTPAddr: addr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err == nil {
		t.Fatal("the server started on an address another listener holds")
	}
	if _, err := os.Stat(LayoutOf(existing).DB); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the failed start made a database in the existing directory %s (%v)", existing, err)
	}
}

// A server asked to stop while it is still starting (a SIGTERM during its
// recovery) stops cleanly, as one asked after its start would: Serve
// returns no error, so `ql serve` exits 0, and says so in its log.
func TestAServerAskedToStopWhileStartingStopsCleanly(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 1, "sleep 300")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	logs := &lockedBuffer{}
	err := Serve(ctx, Config{DataDir: dataDir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond,
		StopTimeout: 4 * time.Second, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("a server stopped while starting returned %v, want a clean stop", err)
	}
	if !strings.Contains(logs.String(), "code="+CodeStoppedWhileStarting) {
		t.Fatalf("the stop logged no %s line:\n%s", CodeStoppedWhileStarting, logs)
	}
	if n := count(t, observer(t, dataDir), `SELECT count(*) FROM runs`); n != 0 {
		t.Fatalf("the server stopped while starting admitted %d runs", n)
	}
}
