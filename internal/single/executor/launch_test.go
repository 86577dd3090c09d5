package executor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// runOne admits c, runs it on a fresh dispatcher with opts and returns
// the recorded attempt and its log.
func (h *harness) runOne(t *testing.T, c task.Command, opts dispatcherOpts) (run.Attempt, string) {
	t.Helper()
	runID := h.admit(t, c)
	d, sig := h.dispatcher(t, opts)
	d.Wake()
	sig.wait(t, 1)
	a := h.detail(t, runID).Attempts[0]
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), a.ID, &log); err != nil {
		t.Fatal(err)
	}
	return a, log.String()
}

// A task without workingDir must not start next to the server's secrets
// and database: it gets a fresh, empty, private directory of its own,
// removed after the attempt.
func TestATaskWithoutWorkingDirStartsInAnEmptyPrivateDirectory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, log := h.runOne(t, shell(`pwd; stat -c %a .; ls -A | wc -l; touch scratch`, time.Minute), dispatcherOpts{})
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if a.State != run.AttemptSucceeded || len(lines) != 3 {
		t.Fatalf("attempt %s, log %q", a.State, log)
	}
	cwd, _ := os.Getwd()
	dir := lines[0]
	if dir == cwd || !strings.Contains(filepath.Base(dir), a.ID) {
		t.Fatalf("the command ran in %s (server directory %s); want a directory of attempt %s", dir, cwd, a.ID)
	}
	if lines[1] != "700" || strings.TrimSpace(lines[2]) != "0" {
		t.Fatalf("the attempt's directory had mode %s and %s entries; want 700 and empty", lines[1], lines[2])
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the attempt's directory %s is still there after the attempt: %v", dir, err)
	}
}
