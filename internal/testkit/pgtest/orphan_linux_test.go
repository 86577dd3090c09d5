package pgtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestOrphanedServerDies proves the guarantee Main cannot give on its own:
// when the test process dies abruptly, the postmaster goes too (parent-death
// signal) and the next sweep removes the temp dir.
func TestOrphanedServerDies(t *testing.T) {
	t.Parallel()
	Server(t) // skip or fail exactly like the other tests when PostgreSQL is missing
	for _, mode := range []string{"kill", "panic"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$", "-test.count=1")
			cmd.Env = append(os.Environ(), OrphanHelperEnv+"="+mode)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid, port int
			var dir string
			for sc := bufio.NewScanner(stdout); sc.Scan(); {
				if _, err := fmt.Sscanf(sc.Text(), "orphan-helper pid=%d port=%d dir=%s", &pid, &port, &dir); err == nil {
					break
				}
			}
			if pid == 0 {
				_ = cmd.Wait()
				t.Fatalf("helper did not report a server; stderr:\n%s", stderr.String())
			}
			if mode == "kill" {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
			}
			// The helper's output is no longer needed; its exit status is
			// the point of the exercise, not an error.
			_ = cmd.Wait()
			if mode == "panic" && !strings.Contains(stderr.String(), "dying without returning") {
				t.Fatalf("helper did not die by panic; stderr:\n%s", stderr.String())
			}

			awaitProcessGone(t, pid)
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				_ = c.Close()
				t.Errorf("port %d still accepts connections after the owner died", port)
			}
			awaitSwept(t, dir)
		})
	}
}

// awaitProcessGone polls, because the orphaned postmaster is not our child
// and gives us nothing to wait on. A zombie counts as gone: in a container
// the reaper that inherits it may never collect it.
func awaitProcessGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !processGone(pid) {
		select {
		case <-deadline:
			t.Fatalf("postmaster %d still running after its owner died", pid)
		case <-tick.C:
		}
	}
}

// awaitSwept sweeps until dir is gone. One sweep is not enough to assert on:
// a concurrent sweeper (the other subtest, or another package's test binary
// starting up) may hold the dir's lock while it is still deleting it.
func awaitSwept(t *testing.T, dir string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		sweepOrphans()
		_, err := os.Stat(dir)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("orphaned dir %s survived the sweep (stat: %v)", dir, err)
		case <-tick.C:
		}
	}
}

func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state letter follows the parenthesised command name.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
