package agent

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A worker given --run-as runs the command of a task without a runAs as
// that account, and one with its own runAs as that one.
func TestAWorkerRunsCommandsOfTasksWithoutRunAsAsItsRunAs(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("switching the commands' account needs root")
	}
	in := newIngress(t, 30_000)
	plain := in.enqueue(t, shell(`id -u`))
	own := shell(`id -u`)
	own.RunAs = task.RunAs{User: "root"}
	pinned := in.enqueue(t, own)
	runAgent(t, in, func(cfg *Config) { cfg.RunAs = task.RunAs{User: "nobody"} })
	in.completed(plain.AttemptID)
	in.completed(pinned.AttemptID)
	if got := strings.TrimSpace(string(in.attempt(plain.AttemptID).log)); got != "65534" {
		t.Fatalf("a task without runAs ran as uid %q, want --run-as nobody's 65534", got)
	}
	if got := strings.TrimSpace(string(in.attempt(pinned.AttemptID).log)); got != "0" {
		t.Fatalf("a task with runAs root ran as uid %q, want 0", got)
	}
}

// A --run-as the server would refuse the worker refuses alike: a
// malformed one as an invalid setting naming --run-as (exit 2), an
// account that does not exist before anything starts, naming it.
func TestAWorkerRefusesARunAsAsTheServerDoes(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	cfg := Config{Server: in.srv.URL, Credential: in.credential, DataDir: t.TempDir(), Concurrency: 1, StopTimeout: 5 * time.Second, RunAs: task.RunAs{User: "a b"}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--run-as") {
		t.Fatalf("--run-as %q: %v, want a refusal naming --run-as", "a b", err)
	}
	cfg.RunAs = task.RunAs{User: "no-such-user-ql"}
	// Bounded, so a worker that took the account would end the test.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := Run(ctx, cfg)
	if qlerror.CodeOf(err) != qlerror.NotFound || !strings.Contains(err.Error(), "no-such-user-ql") {
		t.Fatalf("--run-as no-such-user-ql: %v, want not found naming the account", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.registers != 0 {
		t.Fatal("a worker with an unknown --run-as registered")
	}
}
