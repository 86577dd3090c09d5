package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
)

// The working directories a dead server or worker left behind are removed
// by the attempt's id, with what the command wrote in them, and no other
// attempt's directory is touched; a string that is not an attempt id
// removes nothing.
func TestTheWorkingDirectoriesOfAnEndedAttemptAreRemovedByItsIDAlone(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ended, other := ids.New(), ids.New()
	var dirs []string
	for _, id := range []string{ended, ended, other} {
		dir, _, err := attemptDir(task.Command{}, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "left.txt"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	if n, err := RemoveAttemptDirs(ended); err != nil || n != 2 {
		t.Fatalf("removed %d directories (%v), want the ended attempt's two", n, err)
	}
	for i, d := range dirs {
		_, err := os.Stat(d)
		if gone := os.IsNotExist(err); gone != (i < 2) {
			t.Errorf("%s: gone %t (%v), want only the ended attempt's directories gone", d, gone, err)
		}
	}
	if n, err := RemoveAttemptDirs("*"); err == nil || n != 0 {
		t.Errorf("a pattern for an attempt id removed %d (%v), want nothing and an error", n, err)
	}
}

// A script saved with Windows line endings names its interpreter with a
// carriage return ("/bin/sh\r"), which does not exist: the failure says
// so, names the interpreter as the system read it and how to convert the
// file, instead of calling the script itself missing.
func TestAScriptWithWindowsLineEndingsFailsSayingSoAndHowToConvertIt(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "crlf.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\r\necho crlf ok\r\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	res := runCommand(t.Context(), task.Command{Mode: task.ModeArgv, Path: script, TimeoutMs: 60_000}, nil, &out, func(int) {})
	if res.Code != ErrorCodeSpawnFailed {
		t.Fatalf("result %+v; want %s", res, ErrorCodeSpawnFailed)
	}
	for _, want := range []string{"Windows (CRLF) line ending", `"/bin/sh\r"`, `sed -i 's/\r$//' ` + script, "dos2unix " + script} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log %q does not say %q", out.String(), want)
		}
	}
}
