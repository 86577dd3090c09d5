package process

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// exec reports a missing working directory as "fork/exec /bin/sh: no such
// file or directory"; the log must name the directory instead.
func TestAMissingWorkingDirIsNamed(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "gone")
	c := shell("echo hi", time.Minute)
	c.WorkingDir = missing
	var out syncBuffer
	res := runCommand(t.Context(), c, nil, &out, func(int) {})
	if res.Code != ErrorCodeSpawnFailed || !strings.Contains(out.String(), "the working directory "+missing+" does not exist") {
		t.Fatalf("result %+v, log %q; want spawn_failed naming %s", res, out.String(), missing)
	}
}

// A script whose #! interpreter is missing is reported by exec as the
// script itself missing; the log must name the interpreter.
func TestAMissingInterpreterIsNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "job")
	// Written by a child process: a file this process held open for
	// writing could be inherited by a command another test forks at that
	// moment, and exec'ing it would then fail with "text file busy".
	write := exec.Command("/bin/sh", "-c", `printf '#!/nonexistent/python9 -u\nprint(1)\n' > "$0" && chmod 755 "$0"`, script)
	if out, err := write.CombinedOutput(); err != nil {
		t.Fatalf("writing the script: %v %s", err, out)
	}
	var out syncBuffer
	res := runCommand(t.Context(), task.Command{Mode: task.ModeArgv, Path: script, TimeoutMs: 60_000}, nil, &out, func(int) {})
	if res.Code != ErrorCodeSpawnFailed || !strings.Contains(out.String(), "the interpreter /nonexistent/python9") {
		t.Fatalf("result %+v, log %q; want spawn_failed naming the interpreter", res, out.String())
	}
	if !strings.Contains(out.String(), script) {
		t.Fatalf("log %q does not name the script", out.String())
	}
}

func TestAMissingShellIsNamed(t *testing.T) {
	t.Parallel()
	c := task.Command{Mode: task.ModeShell, Shell: "/nonexistent/sh", Script: "echo", TimeoutMs: 60_000}
	var out syncBuffer
	res := runCommand(t.Context(), c, nil, &out, func(int) {})
	if res.Code != ErrorCodeSpawnFailed || !strings.Contains(out.String(), "the shell /nonexistent/sh does not exist") {
		t.Fatalf("result %+v, log %q; want spawn_failed naming the shell", res, out.String())
	}
}

// The kernel refuses one argument of 128 KiB or more: the longest script
// a task may have must still start.
func TestAScriptOfTheLongestAllowedLengthRuns(t *testing.T) {
	t.Parallel()
	script := "true #" + strings.Repeat("x", task.MaxScriptLen-len("true #"))
	c := shell(script, time.Minute)
	if err := (task.Spec{Name: "long", Command: c}).Validate(); err != nil {
		t.Fatalf("a script of %d bytes is refused: %v", len(script), err)
	}
	var out syncBuffer
	res := runCommand(t.Context(), c, nil, &out, func(int) {})
	if res.State != run.AttemptSucceeded {
		t.Fatalf("a script of the longest allowed length (%d bytes): result %+v, log %q; want it to run", len(script), res, out.String())
	}
}

// A command the kernel will not start for its size ("argument list too
// long") says which fields of the task to shorten.
func TestACommandTooLongToStartNamesWhatToShorten(t *testing.T) {
	t.Parallel()
	c := task.Command{Mode: task.ModeArgv, Path: "/bin/true", Args: []string{strings.Repeat("x", 200<<10)}, TimeoutMs: 60_000}
	var out syncBuffer
	res := runCommand(t.Context(), c, nil, &out, func(int) {})
	if res.Code != ErrorCodeSpawnFailed || !strings.Contains(out.String(), "shorten the task's script, args or env") {
		t.Fatalf("result %+v, log %q; want spawn_failed saying what to shorten", res, out.String())
	}
}
