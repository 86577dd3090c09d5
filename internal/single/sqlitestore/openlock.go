package sqlitestore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// OpenLockSuffix names the file beside the database (qinglong.db.open.lock)
// that every process holding the database open locks shared, and a vacuum
// locks exclusively. A vacuum renames a new file over the database: a
// process that still had the old file open would go on writing frames
// into the -wal file, which belongs to the database's path, not to the
// file, and the new file would take them as its own and be corrupted. So
// no store opens while a vacuum runs, and no vacuum starts while a store
// is open. The lock is on a file of its own, not the database file, so
// the rename cannot move it and it keeps meaning the path.
const OpenLockSuffix = ".open.lock"

// RefusalVacuumRunning is the reason of an open refused while a vacuum
// rewrites the database.
const RefusalVacuumRunning qlerror.Reason = "vacuum_running"

// RefusalDatabaseOpenElsewhere is the reason of a vacuum refused while
// another process has the database open.
const RefusalDatabaseOpenElsewhere qlerror.Reason = "database_open_elsewhere"

// openLock is a store's shared hold of its database's open lock.
type openLock struct{ file *os.File }

// lockOpen takes the shared open lock of the database at path (which
// exists, or the open that follows refuses), or refuses while a vacuum
// holds it. A reader that may not open
// the lock file (a read-only directory or file system with none in it,
// a lock file of another user) reads without it: it never writes, so it cannot corrupt
// the file a vacuum renames into place.
func lockOpen(path string, readOnly bool) (*openLock, error) {
	name, err := openLockPath(path)
	if err != nil {
		// No file there: the open that follows says so in its own words.
		return &openLock{}, nil //nolint:nilerr // the missing file is the open's to report
	}
	f, err := os.OpenFile(name, os.O_RDONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil && readOnly && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		f, err = os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return &openLock{}, nil
		}
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "open %s, the lock that keeps a vacuum from replacing the database while it is open; check that this user may write %s", name, filepath.Dir(name))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		f.Close() //nolint:errcheck // the lock error is the one returned
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, qlerror.New(qlerror.Unavailable,
				"a vacuum (`db vacuum`) is rewriting the database %s, and nothing may open it until the vacuum has replaced it; run this again when the vacuum has finished (it says how far it got every 10 s)", path).
				Because(RefusalVacuumRunning, "db", path)
		}
		return nil, qlerror.Wrap(qlerror.Unavailable, err,
			"lock %s: the file system of the database %s must support flock (some network file systems do not); keep the database on a local file system", name, path)
	}
	return &openLock{file: f}, nil
}

// release drops the lock by LOCK_UN before closing, as a process forked
// meanwhile holds a copy of the descriptor until it executes its program,
// and a flock lasts while any copy is open.
func (l *openLock) release() error {
	if l == nil || l.file == nil {
		return nil
	}
	unlockErr := syscall.Flock(int(l.file.Fd()), syscall.LOCK_UN)
	return errors.Join(unlockErr, l.file.Close())
}

// OpenersLockedOut is a vacuum's exclusive hold of the open lock.
type OpenersLockedOut struct{ lock *openLock }

// LockOpenersOut takes the open lock of the database at path exclusively,
// for a vacuum, or refuses while any process has the database open
// through a store (a command, a backup, a server).
func LockOpenersOut(path string) (*OpenersLockedOut, error) {
	name, err := openLockPath(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "open %s, the lock that keeps every other process from opening the database while it is vacuumed; check that this user may write %s", name, filepath.Dir(name))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close() //nolint:errcheck // the lock error is the one returned
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, qlerror.New(qlerror.FailedPrecondition,
				"another process has the database %s open (a command, a backup or a vacuum; `fuser %s` names it): a vacuum replaces the file and runs only while nothing else has it open; wait for that process to end, then run the vacuum again", path, name).
				Because(RefusalDatabaseOpenElsewhere, "db", path, "lock", name)
		}
		return nil, qlerror.Wrap(qlerror.Unavailable, err,
			"lock %s: the file system of the database %s must support flock (some network file systems do not); keep the database on a local file system", name, path)
	}
	return &OpenersLockedOut{lock: &openLock{file: f}}, nil
}

// Release lets stores open the database again.
func (o *OpenersLockedOut) Release() error { return o.lock.release() }

// openLockPath is the open lock's file for the database at path, which
// exists: beside the file a symbolic link leads to, so every path to one
// database names one lock.
func openLockPath(path string) (string, error) {
	file, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", qlerror.Wrap(qlerror.NotFound, err, "no SQLite database at %s", path)
	}
	return file + OpenLockSuffix, nil
}
