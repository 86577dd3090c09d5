package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// CheckDataDir is the one check every command makes of a data directory
// dir and its database path before it opens (or creates) the embedded
// database, so that each wrong path is said one way and exits one way
// (docs/operations.md, "Exit codes"). A path that cannot serve as the data
// directory is wrong input, exit 2, whichever command was given it: a
// file where the directory is wanted, a directory where the database file
// is wanted, a directory this user may not enter, or, for a command that
// writes (write: serve, apply and every other writer), a directory or
// database file this user may not write, or a directory that cannot be
// made. A directory or database that does not exist yet is not wrong: a
// command that creates the database makes it, and any other says there
// is no database there (mustExist, exit 1: the same command succeeds on
// another database).
func CheckDataDir(dir string, write bool) error {
	info, err := os.Stat(dir)
	switch {
	case err == nil && !info.IsDir():
		return qlerror.New(qlerror.Invalid, "--data-dir %s is a file, not a directory; %s", dir, dataDirOf(dir))
	case errors.Is(err, syscall.ENOTDIR):
		file := fileOnPath(dir)
		return qlerror.New(qlerror.Invalid, "--data-dir %s lies under %s, which is a file, not a directory; %s", dir, file, dataDirOf(file))
	case errors.Is(err, fs.ErrPermission):
		return qlerror.Wrap(qlerror.Invalid, err, "--data-dir %s cannot be reached by this user (a directory on its path may not be entered); run as the data directory's owner, or give a --data-dir this user may use", dir)
	case errors.Is(err, fs.ErrNotExist):
		if write {
			return writable(existingParent(dir), dir)
		}
		return nil
	case err != nil:
		return qlerror.Wrap(qlerror.Unavailable, err, "look at the data directory %s", dir)
	}
	db := filepath.Join(dir, DefaultDBFile)
	dbInfo, dbErr := os.Stat(db)
	if dbErr == nil && dbInfo.IsDir() {
		return qlerror.New(qlerror.Invalid, "%s is a directory, where the database file is wanted; move it away, or give the --data-dir of a database", db)
	}
	if !write {
		return nil
	}
	if err := writable(dir, dir); err != nil {
		return err
	}
	if dbErr == nil && unix.Access(db, unix.W_OK) != nil {
		return qlerror.New(qlerror.Invalid, "the database file %s is not writable by this user; run as its owner (chown it to the service user), or give a --data-dir this user may write", db)
	}
	return nil
}

// writable refuses a data directory dir whose directory at, dir itself or
// the nearest existing one above it that would hold it, this user may not
// write: the database, its -wal and -shm files, the logs and a server's
// lock file are all made there. A read-only file system is the same to
// whoever must give another directory.
func writable(at, dir string) error {
	if unix.Access(at, unix.W_OK|unix.X_OK) == nil {
		return nil
	}
	if at == dir {
		return qlerror.New(qlerror.Invalid, "the data directory %s is not writable by this user (or lies on a read-only file system), and the database, its logs and lock files are written there; run as the directory's owner, or give a --data-dir this user may write", dir)
	}
	return qlerror.New(qlerror.Invalid, "cannot create the data directory %s: %s is not writable by this user (or lies on a read-only file system); create %s as a user who may, owned by this one, or give a --data-dir this user may write", dir, at, dir)
}

// existingParent is the nearest directory above the missing dir that
// exists, which making dir writes into.
func existingParent(dir string) string {
	p := filepath.Clean(dir)
	for {
		up := filepath.Dir(p)
		if _, err := os.Stat(up); err == nil || up == p {
			return up
		}
		p = up
	}
}

// fileOnPath is the file that a path's stat found in place of a directory
// (ENOTDIR): the deepest prefix of path that exists.
func fileOnPath(path string) string {
	p := filepath.Clean(path)
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(p)
		if up == p {
			return path
		}
		p = up
	}
}

// dataDirOf says what to give instead of file as --data-dir: the
// directory holding it when it is a database file (a user who gave the
// file for its directory), and otherwise only what a data directory is:
// the directory of any other file (/etc for /etc/passwd) holds no
// database either.
func dataDirOf(file string) string {
	if filepath.Base(file) == DefaultDBFile {
		return "give the directory holding " + DefaultDBFile + ": --data-dir " + shellquote.Quote(filepath.Dir(file))
	}
	return "give the directory holding " + DefaultDBFile + " (the data directory `serve` or `apply` made)"
}
