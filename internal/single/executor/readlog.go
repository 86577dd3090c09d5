package executor

import (
	"errors"
	"io"
	"os"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
)

// ReadLog copies an attempt's captured output from logDir to w.
func ReadLog(logDir, attemptID string, w io.Writer) error {
	_, err := ReadLogFrom(logDir, attemptID, 0, w)
	return err
}

// ReadLogFrom copies an attempt's captured output from offset on to w and
// returns the offset after what it copied; a follower calls it again with
// that offset while the command still writes. From an offset past the
// log's end it copies nothing and returns the log's length, less than the
// offset, as the cluster's log reader does: the caller can tell.
func ReadLogFrom(logDir, attemptID string, offset int64, w io.Writer) (int64, error) {
	return readLog(logDir, attemptID, offset, -1, w)
}

// ReadLogUpTo is ReadLogFrom copying at most max bytes (max > 0), for a
// reader taking a log a piece at a time.
func ReadLogUpTo(logDir, attemptID string, offset, max int64, w io.Writer) (int64, error) {
	if max <= 0 {
		return offset, qlerror.New(qlerror.Invalid, "read log: a read of %d bytes; give 1 or more", max)
	}
	return readLog(logDir, attemptID, offset, max, w)
}

// readLog copies an attempt's log from offset on to w, at most max bytes
// when max is not negative.
func readLog(logDir, attemptID string, offset, max int64, w io.Writer) (int64, error) {
	if err := ids.Validate("attempt id", attemptID); err != nil {
		return offset, qlerror.Wrap(qlerror.Invalid, err, "read log")
	}
	if offset < 0 {
		return offset, qlerror.New(qlerror.Invalid, "read log: offset %d is negative", offset)
	}
	f, err := os.Open(attemptlog.Path(logDir, attemptID))
	if errors.Is(err, os.ErrNotExist) {
		return offset, qlerror.New(qlerror.NotFound, "attempt %s has no log in %s: it has not started yet, or the log was removed", attemptID, logDir)
	}
	if err != nil {
		return offset, qlerror.Wrap(qlerror.Unavailable, err, "open the log of attempt %s", attemptID)
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return offset, qlerror.Wrap(qlerror.Unavailable, err, "read the log of attempt %s", attemptID)
	}
	if offset > info.Size() {
		return info.Size(), nil
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, qlerror.Wrap(qlerror.Unavailable, err, "read the log of attempt %s", attemptID)
	}
	var r io.Reader = f
	if max >= 0 {
		r = io.LimitReader(f, max)
	}
	n, err := io.Copy(w, r)
	return offset + n, err
}
