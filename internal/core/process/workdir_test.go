package process

import (
	"os"
	"path/filepath"
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
