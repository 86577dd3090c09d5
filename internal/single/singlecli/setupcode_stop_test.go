package singlecli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/single/server"
)

// The setup code works only while the server that drew it runs, so its
// file goes when that server stops on a signal, a drain that must kill a
// command ignoring SIGTERM within --stop-timeout included.
func TestTheSetupCodesFileGoesWhenTheServerStopsOnASignal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		defs    string
		running bool
	}{
		{name: "signal"},
		{name: "drain kills a command", defs: stubbornFile, running: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := installedDir(t)
			if tc.defs != "" {
				applyDefs(t, dir, tc.defs)
			}
			file := filepath.Join(dir, server.SetupCodeFile)
			p := startServe(t, "--data-dir", dir, "--http-addr", "127.0.0.1:0", "--concurrency", "1", "--stop-timeout", "2s", "--cadence", "250ms")
			if _, err := os.Stat(file); err != nil {
				t.Fatalf("no setup code's file while the server serves a database without accounts: %v", err)
			}
			if tc.running {
				db := readOnlyDB(t, dir)
				deadline := time.Now().Add(20 * time.Second)
				for running := 0; running == 0; time.Sleep(50 * time.Millisecond) {
					_ = db.QueryRow(`SELECT count(*) FROM attempts WHERE state = 'running'`).Scan(&running)
					if time.Now().After(deadline) {
						t.Fatalf("no command ran within 20s: %s", p.stderr.String())
					}
				}
			}
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("ql serve still ran 30s after SIGTERM: %s", p.stderr.String())
			}
			if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the setup code's file outlived the server that drew it (%v): %s", err, p.stderr.String())
			}
		})
	}
}
