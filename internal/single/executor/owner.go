package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/single/lockprobe"
)

// Owner is one executor instance's identity. It holds an exclusive flock
// on <dir>/<id>.lock until Release or process exit — the kernel drops the
// lock when the process dies, however it dies, which is what lets recovery
// tell a crashed owner from a live one.
type Owner struct {
	ID   string
	dir  string
	file *os.File

	// mu orders keep against Release: a result is kept only while the
	// owner's lock is held, so nothing of this owner is written into dir
	// once Release returned (a stop that gave up on a command still
	// being recorded returns before its worker ends; see keep).
	mu       sync.Mutex
	released bool
}

// AcquireOwner creates a fresh owner in dir.
func AcquireOwner(dir string) (*Owner, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the executor owner directory %s; check permissions of the data directory", dir)
	}
	id := ids.New()
	path := filepath.Join(dir, id+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the executor owner file in %s", dir)
	}
	if err := lockOwnerFile(f); err != nil {
		f.Close() //nolint:errcheck // the lock error is the one returned
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "lock the executor owner file in %s; the filesystem must support flock", dir)
	}
	// A recovery of another server that probed the file in that moment
	// took it for a gone owner's and removed it: a lock on a file no probe
	// finds would let that recovery lose this owner's attempts.
	if held, err := f.Stat(); err != nil || !sameFile(held, path) {
		f.Close() //nolint:errcheck // the owner is refused either way
		return nil, qlerror.New(qlerror.Unavailable, "the executor owner file %s was removed while this server started (another server's recovery took it for a crashed one's); start the server again", path)
	}
	return &Owner{ID: id, dir: dir, file: f}, nil
}

// ownerLockWait bounds how long a new owner waits for its own file's
// lock: a probe (ownerGone, Serving) that opened the file before it holds
// a shared lock for a moment only, and must not make the server fail to
// start; nothing else opens an owner's file.
const ownerLockWait = 5 * time.Second

// lockOwnerFile takes f's exclusive lock, retrying while a probe holds it
// shared, for at most ownerLockWait.
func lockOwnerFile(f *os.File) error {
	deadline := time.Now().Add(ownerLockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sameFile reports whether path still names the file held.
func sameFile(held os.FileInfo, path string) bool {
	st, err := os.Stat(path)
	return err == nil && os.SameFile(held, st)
}

// Release drops the lock and removes the owner file. Call it only after
// every attempt of this owner has been recorded.
func (o *Owner) Release() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.released = true
	path := o.file.Name()
	if err := o.file.Close(); err != nil {
		return err
	}
	return os.Remove(path)
}

// ownerGone reports whether the owner process is gone: its lock file is
// missing, or a shared lock on it can be taken. Shared, so that two probes
// never see each other as a live owner: a recovery beside a Serving probe
// (or another server's recovery) on a dead owner's file still finds it
// gone, where an exclusive probe would take the other's brief lock for the
// owner's and leave the dead owner's attempts running.
func ownerGone(dir, id string) (bool, error) {
	if ids.Validate("owner", id) != nil {
		// Not an id this executor writes; nobody can hold a lock for it.
		return true, nil
	}
	path := filepath.Join(dir, id+".lock")
	live, err := lockprobe.Held(path)
	if live || err != nil {
		return false, err
	}
	// Another recovery that found it gone too may have removed it first.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return true, err
	}
	return true, nil
}

// Serving reports whether a live executor owner holds its lock in dir:
// whether a server is running on the data directory dir belongs to, and so
// will start a queued Run. It only probes: it takes each lock shared for
// a moment, which neither a live owner's exclusive lock nor a recovery's
// probe (ownerGone) mistakes for anything, and removes nothing.
func Serving(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || ids.Validate("owner", id) != nil {
			continue
		}
		live, err := lockprobe.Held(filepath.Join(dir, e.Name()))
		if live || err != nil {
			return live, err
		}
	}
	return false, nil
}

// Recovery is what Recover did.
type Recovery struct {
	// Kept counts attempts whose result a stopped server kept in a file,
	// the store not taking it before the stop's end, now recorded.
	Kept int
	// Lost counts attempts marked lost.
	Lost int
	// Finished counts the Runs the recovery finished: lost, with their
	// attempt, or as a kept result said.
	Finished run.FinishCounts
	// Retried counts the lost attempts whose Run waits to retry instead:
	// its task's retry policy retries a lost attempt.
	Retried int
	// OrphansEnded counts lost attempts whose command was still running
	// (its server died, it did not) and was ended.
	OrphansEnded int
	// OrphansLeft counts lost attempts under whose process group id
	// something still runs that could not be proven to be the command, or
	// could not be ended; they were left alone.
	OrphansLeft int
	// OrphanErr is the first failure to check or end one, or to remove
	// the working directory of one that no longer runs (for the log; it
	// does not stop the server from starting).
	OrphanErr error
}

// Recover records the results that stopped owners kept in files (see
// kept), then marks lost every starting or running attempt whose owner
// process is gone, ends the commands such an owner left running (see
// process.EndOrphan) and removes their fresh working directories, then
// removes the lock files of owners that are gone.
// A Run whose task retries a lost attempt waits to retry (run.retry_wait)
// and the dispatcher runs its next attempt after the backoff; any other
// ends lost (run.lost) and waits to be reconciled. Claimed attempts that
// never started are left for the dispatcher.
func Recover(ctx context.Context, st Store, self *Owner) (Recovery, error) {
	var rec Recovery
	if err := recordKept(ctx, st, self, &rec); err != nil {
		return rec, err
	}
	lost, finished, err := loseDeadOwners(ctx, st, self)
	// Every attempt lost was its Run's running one: the Run either ended
	// lost with it or waits to retry.
	rec.Lost, rec.Retried = len(lost), len(lost)-finished.Total()
	rec.Finished.Merge(finished)
	if err != nil {
		return rec, err
	}
	endOrphans(lost, &rec)
	return rec, sweepOwners(self)
}

// endOrphans ends the commands of lost attempts that still run, all at
// once, so start-up waits one grace period rather than one per command. It
// runs only after the attempts are recorded lost: a command ended here can
// never report a result that would be mistaken for the attempt's.
func endOrphans(lost []run.Attempt, rec *Recovery) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, a := range lost {
		if a.PID <= 0 || a.StartedAtMs == nil {
			continue // it never started a process
		}
		wg.Go(func() {
			outcome, err := process.EndOrphan(a.PID, *a.StartedAtMs)
			var dirErr error
			if err == nil && outcome != process.OrphanLeft {
				// Nothing of the command runs any more: its fresh working
				// directory, which its dead server never removed, goes.
				_, dirErr = process.RemoveAttemptDirs(a.ID)
			}
			mu.Lock()
			defer mu.Unlock()
			if dirErr != nil && rec.OrphanErr == nil {
				rec.OrphanErr = fmt.Errorf("remove the working directory of attempt %s: %w", a.ID, dirErr)
			}
			switch {
			case err != nil:
				rec.OrphansLeft++
				if rec.OrphanErr == nil {
					rec.OrphanErr = fmt.Errorf("end the orphaned command of attempt %s (process group %d): %w", a.ID, a.PID, err)
				}
			case outcome == process.OrphanEnded:
				rec.OrphansEnded++
			case outcome == process.OrphanLeft:
				rec.OrphansLeft++
			}
		})
	}
	wg.Wait()
}

// sweepOwners removes the lock files of every owner that is gone (a crash
// leaves its file behind). A missing file already means "gone", so removing
// one before its attempts are marked lost changes nothing.
func sweepOwners(self *Owner) error {
	entries, err := os.ReadDir(self.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || id == self.ID || ids.Validate("owner", id) != nil {
			continue
		}
		if _, err := ownerGone(self.dir, id); err != nil {
			return fmt.Errorf("check executor owner %s: %w", id, err)
		}
	}
	return nil
}

func loseDeadOwners(ctx context.Context, st Store, self *Owner) ([]run.Attempt, run.FinishCounts, error) {
	var finished run.FinishCounts
	owners, err := st.AttemptOwners(ctx)
	if err != nil {
		return nil, finished, err
	}
	var total []run.Attempt
	for _, owner := range owners {
		if owner == self.ID {
			continue
		}
		gone, err := ownerGone(self.dir, owner)
		if err != nil {
			return total, finished, fmt.Errorf("check executor owner %s: %w", owner, err)
		}
		if !gone {
			continue
		}
		lost, runs, err := st.AttemptsLose(ctx, owner)
		total = append(total, lost...)
		finished.Merge(runs)
		if err != nil {
			return total, finished, err
		}
	}
	return total, finished, nil
}
