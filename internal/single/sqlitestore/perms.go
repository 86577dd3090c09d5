package sqlitestore

import (
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/privatefile"
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
