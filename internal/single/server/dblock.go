package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// dbLock is a server's hold on its database file itself: an exclusive
// flock on the file, however this server reached it. The directory's lock
// (dirLock) keeps a second server out of the same directory, and out of
// one reached through a symbolic link to the directory, since both name
// the same lock file; but a data directory whose qinglong.db is a symbolic
// link or a hard link to another directory's file, or sits under a linked
// parent, has a lock file of its own, and a server there would recover the
// first server's attempts as lost and end their commands. The file's
// identity (its inode) is the one thing every way of reaching it shares,
// so the lock is on the file: a lock file beside the resolved path would
// still miss a hard link.
//
// A flock does not interact with SQLite's own locks on the file, which are
// POSIX record locks (fcntl) on Linux, on a local file system: the kernel
// keeps the two kinds apart. (On NFS the kernel emulates flock with a
// whole-file fcntl lock, which would block other processes' SQLite locks;
// SQLite's WAL mode, which the store uses, does not work on a network file
// system anyway.) What does interact is closing a descriptor: closing any
// descriptor of the file drops every POSIX lock this process holds on it,
// SQLite's included. So the descriptor is opened before the store opens the
// database and closed only after the store has closed it, and no other code
// opens and closes the database file while the store is open.
type dbLock struct {
	file *os.File
	// created is set when this lock made the (empty) file, which a start
	// that fails before the store fills it removes again.
	created bool
}

// lockDatabase takes the database file's lock for the server on the data
// directory dir, whose database path is path, creating the file (mode
// 0600, as the store would) when it is missing, or refuses: another server
// holds it through another path.
func lockDatabase(dir, path string) (*dbLock, error) {
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	// Read-only is enough for a flock, and opens a file the server would
	// otherwise fail to write with the store's own message. Followed
	// through symbolic links on purpose: the lock is on the file reached.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "open the database file %s to lock it; check that %s may be read and its directory written by this user", path, path)
	}
	if created {
		if err := f.Chmod(0o600); err != nil {
			f.Close() //nolint:errcheck // the chmod error is the one returned
			return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the database file %s", path)
		}
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return &dbLock{file: f, created: created}, nil
	}
	f.Close() //nolint:errcheck // the lock error is the one returned
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, databaseInUse(dir, path)
	}
	return nil, qlerror.Wrap(qlerror.Unavailable, err,
		"lock the database file %s: the file system of the data directory %s must support flock (some network file systems do not); give a --data-dir on a local file system", path, dir)
}

// databaseInUse is the refusal of a server whose database file another
// server holds through another path, naming that server's pid and the
// path it opened the file by when /proc tells them.
func databaseInUse(dir, path string) error {
	who, through := "another server", " through another path (a link to the same file)"
	if pid, other, ok := flockHolder(path); ok {
		who += " (pid " + strconv.Itoa(pid) + ")"
		through = " as " + other + " (the same file, through a link)"
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"%s is serving the database %s%s: only one server may use a database, however its file is reached; stop that server first, or give the data directory %s a database of its own",
		who, path, through, dir)
}

// release drops the lock and closes the file; call it only once the store
// has closed the database (see dbLock). LOCK_UN first, for the reason
// dirLock.release gives: a process forked meanwhile holds a copy of the
// descriptor until it executes its program.
func (l *dbLock) release() error {
	unlockErr := syscall.Flock(int(l.file.Fd()), syscall.LOCK_UN)
	return errors.Join(unlockErr, l.file.Close())
}

// discardCreated removes the file this lock created, while still holding
// it, when it is still empty: a start that failed before the store made a
// database in it leaves no file a later start would take for one cut
// short. The file's resolved path is removed, not a symbolic link to it.
func (l *dbLock) discardCreated() {
	if !l.created {
		return
	}
	held, err := l.file.Stat()
	if err != nil || held.Size() != 0 {
		return
	}
	real, err := filepath.EvalSymlinks(l.file.Name())
	if err != nil {
		return
	}
	if named, err := os.Stat(real); err == nil && os.SameFile(named, held) {
		_ = os.Remove(real)
	}
}
