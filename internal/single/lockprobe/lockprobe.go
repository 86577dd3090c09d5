// Package lockprobe tells whether a process holds a lock file exclusively,
// without taking the lock in a way its holder or a starting holder could
// mistake for anything: a shared flock taken without waiting and dropped
// at once.
package lockprobe

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Held reports whether the lock file at path is held exclusively: a
// shared lock on it cannot be had. A missing file is not held (its holder,
// if any, removed it or never made it). The file is opened read-only and
// not through a symbolic link, so a probe creates and changes nothing; a
// user who may not open it gets the error.
func Held(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close() //nolint:errcheck // only probed for its lock; closing drops it
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
