package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clusterreplica "github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/testkit/procs"
)

// A soak replica is a real `ql serve --profile cluster` process.

const (
	// buildTimeout bounds `go build ./cmd/ql`.
	buildTimeout = 5 * time.Minute
	// killExitWithin bounds waiting for a process to die after SIGKILL.
	killExitWithin = 10 * time.Second
	// termExitWithin bounds a clean exit after SIGTERM; the replica's own
	// drain is bounded by its stop timeout, 10 s by default.
	termExitWithin = 30 * time.Second
	// probeTimeout bounds one /readyz request.
	probeTimeout = time.Second
)

// buildQL compiles cmd/ql into a temp dir and returns the binary's path.
func buildQL(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ql")
	ctx, cancel := context.WithTimeout(t.Context(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/qinglong/qinglong/cmd/ql")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ql: %v\n%s", err, out)
	}
	return bin
}

// qlProcess is one run of `ql serve`.
type qlProcess struct {
	cmd     *exec.Cmd
	logPath string
	done    <-chan struct{} // closed once the process has exited and been reaped
	state   *os.ProcessState
	// addr is where its API listens, once its log has said so.
	addr string
}

// startQL starts bin with args and env, its output appended to logPath.
// The process gets SIGKILL if the test process dies, so no replica
// outlives the gate.
func startQL(bin string, args, env []string, logPath string) (*qlProcess, error) {
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p := &qlProcess{cmd: cmd, logPath: logPath}
	p.done, err = procs.Start(cmd, func(st *os.ProcessState) { p.state = st })
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p *qlProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and returns once the kernel reports the process dead
// by that signal, which proves the kill really happened.
func (p *qlProcess) kill() error {
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("SIGKILL pid %d: %w", p.cmd.Process.Pid, err)
	}
	select {
	case <-p.done:
	case <-time.After(killExitWithin):
		return fmt.Errorf("pid %d still running %v after SIGKILL", p.cmd.Process.Pid, killExitWithin)
	}
	ws, ok := p.state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		return fmt.Errorf("pid %d ended with %v, not by SIGKILL", p.cmd.Process.Pid, p.state)
	}
	return nil
}

// terminate sends SIGTERM and waits for a clean exit (status 0).
func (p *qlProcess) terminate() error {
	if !p.exited() {
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("SIGTERM pid %d: %w", p.cmd.Process.Pid, err)
		}
	}
	select {
	case <-p.done:
	case <-time.After(termExitWithin):
		_ = p.kill()
		return fmt.Errorf("pid %d did not exit within %v of SIGTERM; killed", p.cmd.Process.Pid, termExitWithin)
	}
	if !p.state.Success() {
		return fmt.Errorf("pid %d exited with %v after SIGTERM, want status 0", p.cmd.Process.Pid, p.state)
	}
	return nil
}

// listenAddr is the address the process's API listens on, read from the
// line it logs once it has bound its port; "" until that line is written.
func (p *qlProcess) listenAddr() string {
	if p.addr != "" {
		return p.addr
	}
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		var rec struct{ Code, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Code == clusterreplica.CodeListening {
			p.addr = rec.Addr
			break
		}
	}
	return p.addr
}

// probeReady reports the replica's /readyz status code (0 when the request
// failed, or when addr is "": the process has not bound its port yet).
func probeReady(client *http.Client, addr string) int {
	if addr == "" {
		return 0
	}
	resp, err := client.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	return resp.StatusCode
}

// logTail is the end of a replica's output, for failure messages.
func logTail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
