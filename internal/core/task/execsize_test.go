package task

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// argvOfSize is an argv command of /bin/true whose ExecSize is size, its
// arguments each as long as an argument may be.
func argvOfSize(t *testing.T, size int) Command {
	t.Helper()
	c := Command{Mode: ModeArgv, Path: "/bin/true", TimeoutMs: 1000}
	for left := size - c.ExecSize(); left > 0; left = size - c.ExecSize() {
		c.Args = append(c.Args, strings.Repeat("a", min(MaxArgLen, left-9)))
	}
	if c.ExecSize() != size {
		t.Fatalf("built a command of %d bytes, want %d", c.ExecSize(), size)
	}
	return c
}

// start runs c's program with c's arguments and environment, as the
// executor does, and returns the error exec gives.
func start(c Command) error {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = []string{}
	for _, e := range c.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	return cmd.Run()
}

// A command whose arguments and environment together take more of ARG_MAX
// than a task may (MaxExecSize) is refused by validation, naming its size
// and the limit, though each argument and variable is within its own
// limit; one at the limit is valid and starts. Past ARG_MAX itself, which
// apply accepted before, exec really refuses it ("argument list too
// long").
func TestACommandTooLongToStartIsRefusedWithItsSizeAndTheLimit(t *testing.T) {
	t.Parallel()
	at := argvOfSize(t, MaxExecSize)
	if err := (Spec{Name: "big", Command: at}).Validate(); err != nil {
		t.Fatalf("a command of exactly %d bytes: %v", MaxExecSize, err)
	}
	if err := start(at); err != nil {
		t.Fatalf("a command of exactly %d bytes did not start on this host: %v", MaxExecSize, err)
	}

	over := argvOfSize(t, MaxExecSize+1)
	err := (Spec{Name: "big", Command: over}).Validate()
	want := "task.command: starting it takes " + strconv.Itoa(MaxExecSize+1) + " bytes of arguments and environment"
	if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the limit is "+strconv.Itoa(MaxExecSize)) ||
		qlerror.ReasonOf(err) != validate.RefusalTooLong || qlerror.ParamsOf(err)["field"] != "task.command" {
		t.Fatalf("a command of %d bytes: %v (reason %q, params %v); want it refused saying %q and the limit", MaxExecSize+1, err, qlerror.ReasonOf(err), qlerror.ParamsOf(err), want)
	}

	// The environment counts as the arguments do, a shell's script too.
	env := Command{Mode: ModeShell, Shell: "/bin/sh", Script: strings.Repeat("#", MaxScriptLen), TimeoutMs: 1000}
	for i := 0; env.ExecSize() <= MaxExecSize; i++ {
		env.Env = append(env.Env, EnvVar{Name: "V" + strconv.Itoa(i), Value: strings.Repeat("v", MaxEnvValueLen)})
	}
	if err := (Spec{Name: "big", Command: env}).Validate(); qlerror.ReasonOf(err) != validate.RefusalTooLong {
		t.Fatalf("a script with an environment of %d bytes in all: %v; want it refused", env.ExecSize(), err)
	}

	// Every argument as long as one may be, as many as a command may have:
	// more than Linux starts a program with under any stack limit (at most
	// 6 MiB, three quarters of 8 MiB, when it is unlimited).
	widest := Command{Mode: ModeArgv, Path: "/bin/true", TimeoutMs: 1000}
	for range MaxArgs {
		widest.Args = append(widest.Args, strings.Repeat("a", MaxArgLen))
	}
	if err := start(widest); !errors.Is(err, syscall.E2BIG) {
		t.Fatalf("exec of a command of %d bytes: %v; want argument list too long", widest.ExecSize(), err)
	}
	if err := (Spec{Name: "big", Command: widest}).Validate(); qlerror.ReasonOf(err) != validate.RefusalTooLong {
		t.Fatalf("a command exec refuses as too long: %v; want it refused", err)
	}
}
