// Package privatefile makes the files QingLong keeps secrets in (its
// databases and their SQLite companions) its own user's alone, and says
// when the directory holding them lets others in. The single-node store
// and the worker's journal share it: neither may import the other.
package privatefile

import (
	"errors"
	"io/fs"
	"os"
)

// Create creates a missing file with mode 0600 before SQLite does: SQLite
// would create it with 0644 under the usual umask, and it gives the -wal
// and -shm files it creates later the database file's mode. An existing
// file keeps the mode its operator chose.
func Create(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// The umask may have narrowed the mode further; never widened it.
	// Setting it explicitly keeps the owner's read and write.
	return errors.Join(f.Chmod(0o600), f.Close())
}

// NarrowCompanions takes from the -wal and -shm files of the SQLite
// database at path every permission the database file itself does not
// grant, and returns the files it narrowed. SQLite gives a companion it
// creates the database's mode, but reuses one it finds: a companion left
// 0644 by an older build (or a database narrowed by hand while they
// existed) stays readable by others, and the WAL holds recent writes. A
// missing database or companion is left alone: there is nothing to read.
func NarrowCompanions(path string) ([]string, error) {
	db, err := os.Stat(path)
	if err != nil {
		return nil, nil
	}
	var narrowed []string
	for _, p := range []string{path + "-wal", path + "-shm"} {
		info, err := os.Lstat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		mode := info.Mode().Perm()
		if mode&^db.Mode().Perm() == 0 {
			continue
		}
		if err := os.Chmod(p, mode&db.Mode().Perm()); err != nil {
			return narrowed, err
		}
		narrowed = append(narrowed, p)
	}
	return narrowed, nil
}

// DirAccess is how far a directory lets its group or others in.
type DirAccess int

const (
	// DirPrivate is a directory neither its group nor others may enter.
	DirPrivate DirAccess = iota
	// DirListable is one they may list and stat the entries of, not
	// change: the files QingLong creates there are owner-only, so they
	// learn names, sizes and times, never contents.
	DirListable
	// DirWritable is one they may create, rename or delete entries in, so
	// replace the database or put a secrets file there before the server
	// makes its own; owner-only files do not protect against that.
	DirWritable
)

// DirOpenToOthers is the mode of directory dir and how far its group or
// others may enter it: an existing directory is the operator's to
// tighten. A directory that cannot be read says DirPrivate.
func DirOpenToOthers(dir string) (fs.FileMode, DirAccess) {
	info, err := os.Stat(dir)
	if err != nil {
		return 0, DirPrivate
	}
	switch perm := info.Mode().Perm(); {
	case perm&0o022 != 0:
		return perm, DirWritable
	case perm&0o077 != 0:
		return perm, DirListable
	default:
		return perm, DirPrivate
	}
}
