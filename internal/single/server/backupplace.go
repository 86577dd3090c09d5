package server

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// checkBackupOutside refuses a backup destination inside the data
// directory it copies (or the directory itself): the copy of the logs
// would take in the copy being written, and a backup kept there is lost
// with the directory it should restore — a deleted or damaged data
// directory, a failed disk. Links are followed on both sides, so a
// destination reached through one is refused too.
func checkBackupOutside(dataDir, dest string) error {
	data, err := resolved(dataDir)
	if err != nil {
		return nil
	}
	target, err := resolved(dest)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(data, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return qlerror.New(qlerror.Invalid, "%s is inside the data directory %s that the backup copies: the copy would take in itself, and it would be lost with the directory it is meant to restore; "+
		"give a directory outside it, on another disk if you can", dest, dataDir)
}

// resolved is path absolute with its links followed, as far as it exists:
// a destination not created yet is resolved through its nearest existing
// parent.
func resolved(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			return filepath.Join(real, rest), nil
		} else if !os.IsNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(abs, rest), nil
		}
		rest = filepath.Join(filepath.Base(abs), rest)
		abs = parent
	}
}
