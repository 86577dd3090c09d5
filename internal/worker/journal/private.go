package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/qinglong/qinglong/internal/core/privatefile"
)

// restrict makes the journal at path the worker's own before SQLite opens
// it: its WAL holds the lease tokens until a checkpoint, and SQLite gives
// the -wal and -shm files it creates the database file's mode, so a file
// created 0600 keeps all three private. The companions an earlier build
// left 0644 (a worker that crashed keeps them) are narrowed here too.
func restrict(path string) error {
	if err := privatefile.Create(path); err != nil {
		return fmt.Errorf("create the worker journal %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restrict the worker journal %s to its owner: %w", p, err)
		}
	}
	return nil
}
