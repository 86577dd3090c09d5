package sqlitestore

import (
	"path/filepath"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// fullDiskRoom is the free space under which a database that cannot be
// opened or created is put down to its disk: SQLite needs room beside the
// file for its -wal and -shm files even to read it, and a failure there
// reads as an I/O error that names no disk.
const fullDiskRoom = 1 << 20

// roomLeft is the space an unprivileged writer has left on the disk
// holding dir; known is false when it cannot be read.
func roomLeft(dir string) (room uint64, known bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true //nolint:gosec // G115: a block size is positive
}

// openRefused is the error of a database path that could not be opened or
// created (what: "open", "create"): the full disk when its disk has less
// than fullDiskRoom left, else the directory's permissions.
func openRefused(err error, what, path string, room uint64, known bool) error {
	dir := filepath.Dir(path)
	if known && room < fullDiskRoom {
		return qlerror.Wrap(qlerror.Unavailable, err, "%s SQLite database %s: the disk holding %s is full (%d KiB free), and SQLite needs room beside the file for its -wal and -shm files even to read it: free space on that disk and try again",
			what, path, dir, room/1024)
	}
	return qlerror.Wrap(qlerror.Unavailable, err, "%s SQLite database %s; check that the directory exists and is writable", what, path)
}
