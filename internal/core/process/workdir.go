package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
)

// attemptDir is the directory a command starts in. A task without a
// workingDir gets a fresh empty directory (mode 0700, owned by the
// account it runs as) that is removed after the attempt: starting in the
// server's own working directory — by default the data directory, next
// to the secrets file and the database — would let any command read them.
func attemptDir(c task.Command, attemptID string, cred *syscall.Credential) (dir string, cleanup func() error, err error) {
	if c.WorkingDir != "" {
		return c.WorkingDir, func() error { return nil }, nil
	}
	dir, err = os.MkdirTemp("", "qinglong-"+attemptID+"-")
	if err != nil {
		return "", nil, fmt.Errorf("create the attempt's working directory in %s: %w", os.TempDir(), err)
	}
	cleanup = func() error { return os.RemoveAll(dir) }
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", nil, errors.Join(err, cleanup())
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return "", nil, errors.Join(fmt.Errorf("hand the attempt's working directory to uid %d: %w", cred.Uid, err), cleanup())
		}
	}
	return dir, cleanup, nil
}

// RemoveAttemptDirs removes the fresh working directories attemptDir made
// for attemptID that are still there: those of a command whose server or
// worker died before it could remove them, which nothing else ever would.
// Call it only once nothing of that command runs any more (its orphan
// ended or gone): removing a live command's directory would pull it from
// under the command. It returns how many it removed.
func RemoveAttemptDirs(attemptID string) (int, error) {
	if err := ids.Validate("attempt id", attemptID); err != nil {
		return 0, err
	}
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), "qinglong-"+attemptID+"-*"))
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// startFailure explains why a command did not start. exec reports a
// missing working directory or a missing #! interpreter as the program
// itself being missing ("fork/exec /bin/sh: no such file or directory"),
// so each is checked and named; and "argument list too long" names no
// field of the task, though the task's script, args or env is what is
// too long.
func startFailure(err error, c task.Command, dir string) string {
	program := c.Path
	if c.Mode == task.ModeShell {
		program = c.Shell
	}
	if st, statErr := os.Stat(dir); errors.Is(statErr, os.ErrNotExist) {
		return fmt.Sprintf("the working directory %s does not exist; create it or change the task's workingDir", dir)
	} else if statErr == nil && !st.IsDir() {
		return fmt.Sprintf("the working directory %s is not a directory; change the task's workingDir", dir)
	}
	if errors.Is(err, syscall.E2BIG) {
		return "the command line or the environment is longer than the system lets a program start with " +
			"(one argument or value below 128 KiB, all of them together below its ARG_MAX); " +
			"shorten the task's script, args or env: keep a long script or data in a file and pass its path"
	}
	if !errors.Is(err, syscall.ENOENT) {
		return fmt.Sprintf("%v (working directory %s)", err, dir)
	}
	if _, statErr := os.Stat(program); errors.Is(statErr, os.ErrNotExist) {
		if c.Mode == task.ModeShell {
			return fmt.Sprintf("the shell %s does not exist on this machine; install it or use another shell", program)
		}
		return fmt.Sprintf("the program %s does not exist; install it or correct the task's command", program)
	}
	if interp := interpreter(program); interp != "" {
		if _, statErr := os.Stat(interp); errors.Is(statErr, os.ErrNotExist) {
			if strings.HasSuffix(interp, "\r") {
				return fmt.Sprintf("the first line (#!) of %s ends with a Windows (CRLF) line ending, so the system looks for the interpreter %q, which does not exist; "+
					"convert the file to Unix (LF) line endings: sed -i 's/\\r$//' %s (or dos2unix %s)", program, interp, program, program)
			}
			return fmt.Sprintf("the interpreter %s named on the first line (#!) of %s does not exist; install it or correct that line", interp, program)
		}
	}
	return fmt.Sprintf("%v (working directory %s)", err, dir)
}

// interpreter is the program a script's "#!" line names, or "", read as
// the kernel reads it: up to the first space or tab or the line's end, so
// a carriage return before the newline (a file saved with Windows line
// endings) is part of the name.
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close() //nolint:errcheck // read only
	line, err := bufio.NewReader(f).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return ""
	}
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return ""
	}
	rest = bytes.TrimLeft(bytes.TrimSuffix(rest, []byte("\n")), " \t")
	name, _, _ := bytes.Cut(rest, []byte(" "))
	name, _, _ = bytes.Cut(name, []byte("\t"))
	return string(name)
}
