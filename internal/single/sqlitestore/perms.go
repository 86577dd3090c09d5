package sqlitestore

import (
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/privatefile"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// createPrivate creates a missing database file owner-only before SQLite
// does (privatefile.Create), saying when the disk is full.
func createPrivate(path string) error {
	if err := privatefile.Create(path); err != nil {
		room, known := roomLeft(filepath.Dir(path))
		return openRefused(err, "create", path, room, known)
	}
	return nil
}

// narrowCompanions narrows the -wal and -shm files an older build left
// wider than the database file (privatefile.NarrowCompanions), before
// SQLite reuses them.
func narrowCompanions(path string) ([]string, error) {
	narrowed, err := privatefile.NarrowCompanions(path)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "narrow the permissions of the SQLite database's -wal and -shm files next to %s to the database file's; run chmod 600 on them", path)
	}
	return narrowed, nil
}
