package sqlitestore

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// createPrivate creates a missing database file with mode 0600 before
// SQLite does: SQLite would create it with 0644 under the usual umask, and
// it gives the -wal and -shm files it creates later the database file's
// mode. An existing file keeps the mode its operator chose.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		room, known := roomLeft(filepath.Dir(path))
		return openRefused(err, "create", path, room, known)
	}
	// The umask may have narrowed the mode further; never widened it.
	// Setting it explicitly keeps the owner's read and write.
	chmodErr := f.Chmod(0o600)
	if err := errors.Join(chmodErr, f.Close()); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "create SQLite database %s", path)
	}
	return nil
}
