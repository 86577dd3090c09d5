package pgtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

const (
	// dirPrefix names every temp dir the harness owns in os.TempDir(); the
	// sweep only ever looks at these.
	dirPrefix = "pgtest-"
	// stagingPrefix is a dir's name until its lock is held, so the sweep can
	// never see it unlocked.
	stagingPrefix = ".pgtest-staging-"
	lockName      = "pgtest.lock"
)

// lockedDir is a temp dir whose pgtest.lock this process holds with flock
// for as long as the dir is in use. The lock is what tells a later sweep
// whether the owner is still alive.
type lockedDir struct {
	path string
	// lock must stay referenced: if it were garbage collected its finalizer
	// would close the fd and release the flock while the dir is in use.
	lock *os.File
}

var sweepOnce sync.Once

// newLockedDir creates a dir under os.TempDir() owned by owner (see
// serverOwner), first sweeping dirs orphaned by earlier processes.
func newLockedDir(owner *osUser) (*lockedDir, error) {
	sweepOnce.Do(sweepOrphans)

	staging, err := os.MkdirTemp("", stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgtest: temp dir: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(staging, lockName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		_ = os.RemoveAll(staging)
		return nil, fmt.Errorf("pgtest: locking temp dir: %w", err)
	}
	final := filepath.Join(filepath.Dir(staging), dirPrefix+strings.TrimPrefix(filepath.Base(staging), stagingPrefix))
	if err := os.Rename(staging, final); err != nil {
		_ = lock.Close()
		_ = os.RemoveAll(staging)
		return nil, fmt.Errorf("pgtest: temp dir: %w", err)
	}
	d := &lockedDir{path: final, lock: lock}
	if err := checkSearchable(final, owner); err != nil {
		_ = d.remove()
		return nil, err
	}
	if owner != nil {
		if err := os.Chown(final, int(owner.uid), int(owner.gid)); err != nil {
			_ = d.remove()
			return nil, fmt.Errorf("pgtest: chown temp dir: %w", err)
		}
	}
	return d, nil
}

// remove deletes the dir, then releases the lock (closing the fd drops the
// flock). Removing first means a sweeper can never find the lock free while
// files are still being deleted underneath us.
func (d *lockedDir) remove() error {
	err := os.RemoveAll(d.path)
	return errors.Join(err, d.lock.Close())
}

// sweepOrphans removes harness dirs whose owner died without cleaning up
// (see the package doc). Failures are ignored: a dir we cannot lock or
// delete, e.g. another user's, is simply not ours to clean.
func sweepOrphans() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			// The orphaned postmaster may still be finishing the immediate
			// shutdown its parent-death signal started; deleting files under
			// a server that is exiting anyway is harmless.
			_ = os.RemoveAll(dir)
		}
		_ = lock.Close()
	}
}
