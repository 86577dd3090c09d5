package executor

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// ReadLog copies an attempt's captured output from logDir to w.
func ReadLog(logDir, attemptID string, w io.Writer) error {
	if err := ids.Validate("attempt id", attemptID); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "read log")
	}
	f, err := os.Open(filepath.Join(logDir, attemptID+".log"))
	if errors.Is(err, os.ErrNotExist) {
		return qlerror.New(qlerror.NotFound, "attempt %s has no log in %s: it has not started yet, or the log was removed", attemptID, logDir)
	}
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "open the log of attempt %s", attemptID)
	}
	defer f.Close() //nolint:errcheck // read only
	_, err = io.Copy(w, f)
	return err
}
