package retention

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalLogsNotRemovable is the reason of a pass that could not remove
// some log files: everything else it could delete is deleted, and those
// files stay named for removal until they can go. Its params name the
// first file's problem, which decides what the operator does.
const RefusalLogsNotRemovable qlerror.Reason = "logs_not_removable"

// The problems of a log file retention could not remove, by what fixes
// them.
const (
	// ProblemPermission: the directory is not writable by the user that
	// removes it, or the file is immutable (chattr +i gives EPERM).
	ProblemPermission = "permission"
	// ProblemReadOnly: the file system holding the logs is mounted
	// read-only.
	ProblemReadOnly = "read_only"
	// ProblemNotAFile: a directory in the log's place.
	ProblemNotAFile = "not_a_file"
	// ProblemOther: anything else the file system answered.
	ProblemOther = "other"
)

// Problem is what kept k's file, as one of the Problem... names.
func (k Kept) Problem() string {
	switch {
	case errors.Is(k.Err, syscall.EROFS):
		return ProblemReadOnly
	case errors.Is(k.Err, fs.ErrPermission):
		return ProblemPermission
	case errors.Is(k.Err, syscall.ENOTEMPTY), errors.Is(k.Err, syscall.EISDIR), errors.Is(k.Err, syscall.EEXIST):
		return ProblemNotAFile
	}
	return ProblemOther
}

// ProblemAdvice says what to do about a file kept for problem.
func ProblemAdvice(problem string) string {
	switch problem {
	case ProblemPermission:
		return "the logs' directory must be writable by the user that runs retention (the server's: chown or chmod u+w it), " +
			"and an immutable file made mutable (chattr -i); or delete the file yourself"
	case ProblemReadOnly:
		return "the file system holding the logs is mounted read-only: remount it read-write (mount -o remount,rw), " +
			"or free it of whatever made the kernel remount it so (a disk error: check dmesg)"
	case ProblemNotAFile:
		return "a directory is in the log's place: move it away"
	}
	return "make the file removable by the user that runs retention, or delete it yourself"
}
