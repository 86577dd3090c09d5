package scripts

import (
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalBusy is a change of the folder that waited for another's
// longer than lockWait.
const RefusalBusy qlerror.Reason = "script_folder_busy"

// How long a change waits for another process's change of the folder,
// and how often it looks again meanwhile: a change holds the lock for
// one check and one write of at most MaxUpload bytes.
const (
	lockWait = 10 * time.Second
	lockPoll = 10 * time.Millisecond
)

// lock takes the folder's lock for a change: an exclusive flock on the
// folder itself, which every Folder takes, whatever process it is in (a
// server, a second one given the same --scripts-dir, `scripts put`), so
// that a save's check of what the editor loaded and its write go
// together. A lock on the folder needs no lock file, which listings and
// backups would show. It waits at most f.wait (lockWait when zero).
func (f *Folder) lock(r *os.Root) (unlock func(), err error) {
	d, err := r.Open(".")
	if err != nil {
		return nil, refusal("", err)
	}
	wait := f.wait
	if wait == 0 {
		wait = lockWait
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			// Closing the folder drops the lock.
			return func() { _ = d.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(lockPoll)
	}
	_ = d.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, qlerror.New(qlerror.Unavailable, "the scripts folder %s is being changed by another process (a server or `scripts put`/`rm` given the same folder) that held it over %s; nothing was changed: try again", f.Dir, wait).
			Because(RefusalBusy, "dir", f.Dir)
	}
	return nil, qlerror.Wrap(qlerror.Unavailable, err, "lock the scripts folder %s for a change", f.Dir)
}

// changing runs do as with does, holding the folder's lock.
func changing[T any](f *Folder, p string, do func(r *os.Root, p string) (T, error)) (T, error) {
	return with(f, p, func(r *os.Root, p string) (T, error) {
		unlock, err := f.lock(r)
		if err != nil {
			var zero T
			return zero, err
		}
		defer unlock()
		return do(r, p)
	})
}
