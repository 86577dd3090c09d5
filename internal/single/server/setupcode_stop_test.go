package server

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// A stop whose time is out before it begins (every part's drain cut
// short, as at the end of the stop timeout) still removes the setup
// code's file: the code died with the server.
func TestTheSetupCodesFileGoesWhenTheStopTimeoutRunsOut(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	out, cancel := context.WithCancel(t.Context())
	cancel()
	_ = site.srv.Stop(out)
	if _, err := os.Stat(filepath.Join(site.dir, SetupCodeFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the setup code's file outlived a stop out of time (%v)", err)
	}
}

// A start removes the file an earlier server left (one killed before its
// stop could), though it draws no code of its own: it serves no console.
func TestAStartWithoutTheConsoleRemovesAStaleSetupCodesFile(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	file := filepath.Join(dir, SetupCodeFile)
	if err := os.WriteFile(file, []byte("AAAA-BBBB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: dir, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a stale setup code's file is still there after a start (%v)", err)
	}
}
