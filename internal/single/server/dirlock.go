package server

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/lockprobe"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// dirLock is a server's hold on its data directory: an exclusive flock on
// the directory's lock file, taken before the database is opened and
// released after it is closed. Two servers on one directory would each run
// commands up to their own concurrency, race each other's rounds, and the
// second's start would make the first's notification claims due again, so
// a second server is refused. The kernel drops a flock when its process
// dies, however it dies: a server killed with SIGKILL leaves no lock
// behind, only the file, which the next server locks again. The file holds
// the holder's record (holder.go): its pid for the refusal's message and
// for the operator, its --concurrency and start for a reader of the data
// directory; the record is only believed while the lock is held, and is
// never what decides.
type dirLock struct {
	file *os.File
}

// lockDataDir takes the data directory dir's server lock at path and
// writes the holder's record rec (a server's concurrency, or a vacuum),
// with this process's pid and the time, or refuses: another server or a
// vacuum holds it, or the file cannot be locked.
func lockDataDir(dir, path string, rec Holder) (*dirLock, error) {
	// O_NOFOLLOW: the file is truncated and written once locked, so a
	// symbolic link planted at its name must not lead that write
	// elsewhere. Go opens it close-on-exec, so no command the server
	// starts inherits the lock and keeps it past the server's death.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, openLockError(dir, path, err)
	}
	if err := lockPastProbes(f); err != nil {
		f.Close() //nolint:errcheck // the lock error is the one returned
		switch {
		case errors.Is(err, errServed):
			return nil, inUse(dir, path)
		case errors.Is(err, errProbed):
			return nil, qlerror.New(qlerror.Unavailable,
				"another process has held a shared lock on the server lock file %s for %s, which neither a server nor a status probe does; find it (`fuser %s`) and stop it, then start the server again",
				path, dirLockWait, path)
		}
		return nil, qlerror.Wrap(qlerror.Unavailable, err,
			"lock %s: the file system of the data directory %s must support flock (some network file systems do not); give a --data-dir on a local file system", path, dir)
	}
	rec.PID, rec.StartedAtMs = os.Getpid(), time.Now().UnixMilli()
	if err := writeHolder(f, rec); err != nil {
		f.Close() //nolint:errcheck // the write error is the one returned
		if errors.Is(err, syscall.ENOSPC) {
			return nil, qlerror.Wrap(qlerror.Unavailable, err, "write this server's record into %s: the disk holding %s is full; free space on it and start the server again", path, dir)
		}
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "write this server's record into %s", path)
	}
	return &dirLock{file: f}, nil
}

// dirLockWait bounds how long a starting server waits while only shared
// locks hold its lock file: Serving takes one for the span of two system
// calls, so a server waits out any number of probes well within it.
const dirLockWait = 5 * time.Second

var (
	errServed = errors.New("another server holds the lock")
	errProbed = errors.New("a shared lock holds the file")
)

// lockPastProbes takes f's exclusive lock, which fails while another
// process holds the file locked in any mode. Exclusive is a server's, so
// that is errServed; shared is a probe's (Serving), only for a moment, and
// must not make the server fail to start: a shared lock granted to this
// file too tells the two apart (no exclusive holder), and the server drops
// it and tries again, for at most dirLockWait. Two servers starting at once
// never both give up: each holds its shared lock only between two calls,
// so one takes the exclusive lock and the other then finds it held.
func lockPastProbes(f *os.File) error {
	fd := int(f.Fd())
	deadline := time.Now().Add(dirLockWait)
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		err = syscall.Flock(fd, syscall.LOCK_SH|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return errServed
		}
		if err != nil {
			return err
		}
		if err := syscall.Flock(fd, syscall.LOCK_UN); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return errProbed
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Serving reports whether a server serves the data directory of layout l:
// whether its lock file is locked exclusively, which only a running (or
// starting) server does. It only probes, taking the lock shared and
// dropping it at once, so a server starting in that moment waits for it
// (lockPastProbes) rather than failing. It opens the file read-only and
// creates nothing, so it changes nothing on the directory; a user who may
// not open the server's file gets the error. A directory with no lock file
// has never been served. A database a server of another data directory
// serves, reached here through a link (dbLock), is served too, when /proc
// names that server (flockHolder): the probe never opens the database
// file, whose closing would drop the locks SQLite holds on it in this
// process.
func Serving(l Layout) (bool, error) {
	held, err := lockprobe.Held(l.Lock)
	if held || err != nil {
		return held, err
	}
	_, _, linked := flockHolder(l.DB)
	return linked, nil
}

// openLockError says why the lock file cannot be opened and what to do.
func openLockError(dir, path string, err error) error {
	switch {
	case errors.Is(err, syscall.EROFS):
		return qlerror.Wrap(qlerror.Unavailable, err,
			"the data directory %s is on a read-only file system; the server writes its database, logs and lock file there: give a writable --data-dir", dir)
	case errors.Is(err, fs.ErrPermission):
		return qlerror.Wrap(qlerror.Unavailable, err,
			"cannot create or open the server lock file %s; run the server as the user that owns the data directory %s (files another user left there need chown), or give a --data-dir this user may write", path, dir)
	case errors.Is(err, syscall.ELOOP):
		return qlerror.Wrap(qlerror.Unavailable, err,
			"the server lock file %s is a symbolic link, which the server refuses to follow; remove it (the server creates the file itself)", path)
	}
	return qlerror.Wrap(qlerror.Unavailable, err, "open the server lock file %s", path)
}

// inUse is the refusal of a second server, naming the holder's pid when
// the file's record names a live process: the holder writes it just after it locks,
// so a start racing that write finds no pid, or the pid of a server that
// died before, which no longer runs.
func inUse(dir, path string) error {
	who := "another server"
	if h, ok := readHolder(path); ok {
		if h.Vacuum {
			return vacuuming(h, dir)
		}
		if h.HandingOver {
			return qlerror.New(qlerror.FailedPrecondition,
				"an export handing the database over (`export --with-state`, pid %d) holds the data directory %s; once it ends, the database is handed over and a server here is refused (see `serve --take-back`)",
				h.PID, dir).Because(RefusalHandedOver, "dataDir", dir, "pid", h.PID)
		}
		who += " (pid " + strconv.Itoa(h.PID) + ")"
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"%s is serving the data directory %s: only one server may use a data directory; stop that server first, or give this one another --data-dir",
		who, dir)
}

// release empties the file, so that a stopped server leaves no record in
// it that reads like a running one, and drops the lock. The file stays:
// removing it would let a server that opened it just before lock a file no
// later server opens. The lock is dropped by LOCK_UN, not only by the
// close: a process forked in that moment (a command's start, or any other
// in the same process) holds a copy of the descriptor until it executes
// its program, close-on-exec acting only then, and a flock lasts while any
// copy is open, so a server started right after the stop would be refused.
func (l *dirLock) release() error {
	truncErr := l.file.Truncate(0)
	unlockErr := syscall.Flock(int(l.file.Fd()), syscall.LOCK_UN)
	return errors.Join(truncErr, unlockErr, l.file.Close())
}

// vacuuming is the refusal of a server, or of a vacuum, that finds a
// vacuum holding the data directory's lock.
func vacuuming(h Holder, dir string) error {
	return qlerror.New(qlerror.FailedPrecondition,
		"a vacuum (`db vacuum`, pid %d) is rewriting the database of the data directory %s; start this again when it has finished (it says how far it got every 10 s)",
		h.PID, dir).Because(sqlitestore.RefusalVacuumRunning, "dataDir", dir, "pid", h.PID)
}
