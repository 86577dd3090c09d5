package account

import (
	"errors"
	"io/fs"
	"os"
)

// SetupCodeFile is the name of the file a server writes its setup code
// to: a standalone or edge server in its data directory, a cluster
// replica in its --setup-code-dir.
const SetupCodeFile = "qinglong-setup-code"

// WriteSetupCode writes code to path, readable by the process's user
// alone: the file of an earlier start is removed first, since a file that
// exists keeps its mode, which may be wider.
func WriteSetupCode(path, code string) error {
	if err := RemoveSetupCode(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(code + "\n"); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// RemoveSetupCode removes the setup code's file at path; none is not an
// error.
func RemoveSetupCode(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
