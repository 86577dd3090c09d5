package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A server whose log's reader went away (`ql-edge serve 2>&1 | head -c
// 1500`) runs on and stops cleanly at SIGTERM, where Go's runtime killed
// it with SIGPIPE at its next log line: no drain, no serve.stopped, its
// commands orphaned.
func TestAServerWhoseLogReaderWentAwayRunsOnAndStopsCleanly(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve", "--data-dir", filepath.Join(t.TempDir(), "edge"), "--log-level", "debug", "--cadence", "250ms")
	cmd.Env = append(os.Environ(), runMain+"=1")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ready := make(chan bool, 1)
	go func() {
		lines := bufio.NewScanner(r)
		for lines.Scan() {
			if strings.Contains(lines.Text(), "serve.ready") {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the server ended its log before serve.ready")
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the server was not ready within 30s")
	}
	r.Close()
	// Rounds every 250 ms, each logged at debug, find the pipe broken.
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("the server is gone once its log's reader went away: %v", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if st := cmd.ProcessState.Sys().(syscall.WaitStatus); st.Signaled() || st.ExitStatus() != 0 {
		t.Fatalf("the server ended %v; want it to have run on and stopped cleanly at SIGTERM (exit 0)", cmd.ProcessState)
	}
}
