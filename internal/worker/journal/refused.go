package journal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// fullDiskRoom is the free space under which a write the journal refused
// is put down to its disk: SQLite reports a full disk as such only when
// the file itself cannot grow, and as an I/O error when its -wal or -shm
// file cannot.
const fullDiskRoom = 1 << 20

func primaryCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// Refused reports a write the journal did not make and may make later:
// the disk was full, the file could not be written, another process held
// its write lock for all of the busy timeout, or the write's time ran out
// while it waited for the journal (behind the worker's own writes, which
// take one connection in turn). Nothing of such a write was kept (SQLite
// rolls it back whole), so writing it again is safe.
func Refused(err error) bool {
	switch primaryCode(err) {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, context.DeadlineExceeded)
}

// roomLeft is the space an unprivileged writer has left on the disk
// holding dir; known is false when it cannot be read.
func roomLeft(dir string) (room uint64, known bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true //nolint:gosec // G115: a block size is positive
}

// DiskFull reports whether err came from the disk holding dir being full:
// SQLite or the kernel said so, or the disk has less than fullDiskRoom
// left.
func DiskFull(dir string, err error) bool {
	if primaryCode(err) == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) {
		return true
	}
	room, known := roomLeft(dir)
	return known && room < fullDiskRoom
}

// Why says, for the operator, why the journal refused a write: the disk
// full (with what it has left) and what to do, the write lock held by
// another process, or the error itself.
func (j *Journal) Why(err error) string {
	return why(j.dir, err)
}

func why(dir string, err error) string {
	abs, absErr := filepath.Abs(dir)
	if absErr != nil {
		abs = dir
	}
	if DiskFull(dir, err) {
		room, _ := roomLeft(dir)
		return fmt.Sprintf("the disk holding the worker's data directory %s is full (%d KiB free): free space on that disk", abs, room/1024)
	}
	if c := primaryCode(err); c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED {
		return fmt.Sprintf("another process holds the write lock of the journal %s: end whatever besides this worker opened it", filepath.Join(abs, FileName))
	}
	return fmt.Sprintf("the journal %s could not be written (%v): check the disk holding it", filepath.Join(abs, FileName), err)
}

// openFailed is the error of a journal that could not be opened or
// recovered: the full disk and what to do when that is the cause, err as
// it was otherwise.
func openFailed(dir string, err error) error {
	if err == nil || !DiskFull(dir, err) {
		return err
	}
	return qlerror.Wrap(qlerror.Unavailable, err, "%s, then start the worker again (it needs room for its journal even to read it)", why(dir, err))
}
