package singlecli

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command that ignores SIGTERM, so the drain waits for it until its
// SIGKILL at three quarters of the stop timeout.
const stubbornFile = `project: demo
tasks:
  - name: stubborn
    script: trap '' TERM; echo started; sleep 60
triggers:
  - name: every-second
    task: stubborn
    cron: "* * * * * *"
    timezone: UTC
`

// A second Ctrl-C while `ql serve` drains is answered: a line saying what
// the stop still waits for (the running command's attempt), until when,
// that another signal changes nothing and what a SIGKILL would lose; the
// drain then ends by itself and the server exits 0.
func TestASecondStopSignalWhileDrainingSaysWhatTheStopWaitsForAndWhatASIGKILLWouldLose(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, stubbornFile)
	p := startServe(t, "--data-dir", dir, "--concurrency", "1", "--stop-timeout", "10s", "--cadence", "250ms")
	db := readOnlyDB(t, dir)
	attempt := ""
	deadline := time.Now().Add(20 * time.Second)
	for attempt == "" && time.Now().Before(deadline) {
		_ = db.QueryRow(`SELECT id FROM attempts WHERE state = 'running' LIMIT 1`).Scan(&attempt)
		time.Sleep(50 * time.Millisecond)
	}
	if attempt == "" {
		t.Fatalf("no command ran within 20s: %s", p.stderr.String())
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, p, "code=serve.stopping")
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	line := waitFor(t, p, "code=serve.stop_pending")
	for _, want := range []string{"level=WARN", "running=1", attempt, "signal=interrupt", "another signal changes nothing", "SIGKILL", "unsupervised", "lost"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line a second Ctrl-C gets: %q; want %q in it", line, want)
		}
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("ql serve still ran 30s after SIGINT: %s", p.stderr.String())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("ql serve exited %d, want 0 (a drain, however many signals): %s", code, p.stderr.String())
	}
}

// waitFor waits up to 20s for p's stderr to hold a line with want and
// returns that line.
func waitFor(t *testing.T, p *serveProcess, want string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(p.stderr.String(), "\n") {
			if strings.Contains(line, want) {
				return line
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no line with %q within 20s: %s", want, p.stderr.String())
	return ""
}
