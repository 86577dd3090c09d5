package process

import (
	"errors"
	"io/fs"
	"os"
)

// PathMissing reports whether nothing exists at path (as this process
// sees it): a program a task names that is not installed yet. A path
// that cannot be looked at for another reason (a directory this user may
// not search) is not said missing: the server's user may see it.
func PathMissing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
