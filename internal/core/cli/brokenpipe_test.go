package cli

import (
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command a server or worker spawns gets SIGPIPE's default disposition,
// however its logger made the server survive a broken pipe: SIGPIPE is
// notified, never ignored (an ignored one is inherited through exec), so a
// task's `yes | head -1` ends with its writer killed.
func TestACommandSpawnedByALongRunningBinaryKeepsSIGPIPEsDefault(t *testing.T) {
	if _, err := NewLogger(io.Discard, "info", LogText); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", `grep '^SigIgn:' /proc/self/status; yes | head -1`).Output()
	if err != nil {
		t.Fatalf("the spawned command: %v (%s)", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 3 || fields[2] != "y" {
		t.Fatalf("the spawned command printed %q", out)
	}
	ignored, err := strconv.ParseUint(fields[1], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	if ignored&(1<<(syscall.SIGPIPE-1)) != 0 {
		t.Fatalf("the spawned command ignores SIGPIPE (SigIgn %s)", fields[1])
	}
}
