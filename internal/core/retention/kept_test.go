package retention

import (
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// A log file retention could not remove is classed by what fixes it, from
// the file system's own answer: permission (a directory not writable, an
// immutable file), a read-only file system, a directory in its place;
// each has its own advice.
func TestAKeptLogFilesProblemNamesWhatFixesIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		errno   syscall.Errno
		problem string
		advice  string
	}{
		{syscall.EACCES, ProblemPermission, "chmod u+w"},
		{syscall.EPERM, ProblemPermission, "chattr -i"},
		{syscall.EROFS, ProblemReadOnly, "remount it read-write"},
		{syscall.ENOTEMPTY, ProblemNotAFile, "move it away"},
		{syscall.EBUSY, ProblemOther, "delete it yourself"},
	} {
		k := Kept{Path: "/srv/ql/qinglong-logs/a.log", Err: &fs.PathError{Op: "remove", Path: "/srv/ql/qinglong-logs/a.log", Err: c.errno}}
		if got := k.Problem(); got != c.problem {
			t.Errorf("%v: problem %q, want %q", c.errno, got, c.problem)
		}
		if advice := ProblemAdvice(k.Problem()); !strings.Contains(advice, c.advice) {
			t.Errorf("%v: advice %q, want %q in it", c.errno, advice, c.advice)
		}
	}
}
