package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// keptSuffix ends the name of a result kept in a file: <owner>.<attempt>.result
// in the owner directory, beside the owner's lock file.
const keptSuffix = ".result"

// kept is an attempt's result the store did not take before its server
// stopped (a full disk outlasting the stop timeout): written to a file of
// a few hundred bytes, it is recorded by the next start's recovery instead
// of the attempt being found lost, its command having ended as it did.
type kept struct {
	Result run.Attempt
	// PID is the command's process when the store never took its start
	// either (StartUnrecorded): the start is recorded first.
	PID             int
	StartUnrecorded bool
}

// keep writes k to its file durably: a temporary file, fsynced, renamed
// into place and the directory fsynced, so a power cut leaves either the
// whole result or none. It fails too when the disk is full; the attempt is
// then found lost at the next start. It fails as well once the owner is
// released: the stop that released it gave up waiting for this result, and
// a file written now would appear in a directory its server no longer
// holds — after the data directory passed to another server, or while it
// is being removed.
func (o *Owner) keep(k kept) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.released {
		return errOwnerReleased
	}
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	path := filepath.Join(o.dir, o.ID+"."+k.Result.ID+keptSuffix)
	tmp := path + ".tmp"
	if err := writeSynced(tmp, b); err != nil {
		_ = os.Remove(tmp) // the write's error is the one to report
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp) // the rename's error is the one to report
		return err
	}
	return syncDir(o.dir)
}

// errOwnerReleased refuses to keep a result whose server's stop already
// ended.
var errOwnerReleased = errors.New("the server's stop had ended and released its executor owner")

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// recordKept records the results that owners now gone kept in files (see
// kept) and removes each file once the store took it, or refused it for
// good (its attempt had ended: the stop's last write reached the database
// after all). It runs before the gone owners' attempts are marked lost, so
// an attempt whose result was kept ends as its command did. A result the
// store refuses for now fails the recovery, the file left for the next
// start.
func recordKept(ctx context.Context, st Store, self *Owner, rec *Recovery) error {
	entries, err := os.ReadDir(self.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		whole, unfinished := strings.CutSuffix(e.Name(), ".tmp")
		name, ok := strings.CutSuffix(whole, keptSuffix)
		owner, attemptID, dotted := strings.Cut(name, ".")
		if !ok || !dotted || owner == self.ID || ids.Validate("owner", owner) != nil || ids.Validate("attempt", attemptID) != nil {
			continue
		}
		gone, err := ownerGone(self.dir, owner)
		if err != nil {
			return fmt.Errorf("check executor owner %s: %w", owner, err)
		}
		if !gone {
			continue
		}
		path := filepath.Join(self.dir, e.Name())
		if unfinished {
			// Its owner died writing it (keep): it holds no whole result.
			if err := os.Remove(path); err != nil {
				return err
			}
			continue
		}
		state, recorded, err := recordKeptFile(ctx, st, path, attemptID)
		if err != nil {
			return fmt.Errorf("record the result of attempt %s kept in %s: %w", attemptID, path, err)
		}
		if recorded {
			rec.Kept++
			rec.Finished.Add(state)
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}

// recordKeptFile records one kept result. recorded is false when the
// store already holds the attempt's end.
func recordKeptFile(ctx context.Context, st Store, path, attemptID string) (finished run.State, recorded bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	var k kept
	if err := json.Unmarshal(b, &k); err != nil || k.Result.ID != attemptID {
		// A file this executor did not write whole (its rename makes that
		// impossible) holds nothing to record.
		return "", false, nil
	}
	if k.StartUnrecorded {
		if err := st.AttemptRunning(ctx, attemptID, k.PID); err != nil && !ended(err) {
			return "", false, err
		}
	}
	finished, err = st.AttemptFinish(ctx, k.Result)
	if ended(err) {
		return "", false, nil
	}
	return finished, err == nil, err
}

// ended reports a store's refusal of a write to an attempt that has
// already ended (or no longer exists): the kept result is not needed.
func ended(err error) bool {
	return qlerror.Is(err, qlerror.Conflict) || qlerror.Is(err, qlerror.Invalid) || qlerror.Is(err, qlerror.NotFound) || qlerror.Is(err, qlerror.FailedPrecondition)
}
