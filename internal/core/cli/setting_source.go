package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// fileSet marks a flag whose value came from the config file (its path),
// as envSet marks one from the environment.
const fileSet = "ql-file-set"

// sayWhereSettingCame adds to a usage error that begins by naming a
// setting (`--concurrency 0 is outside …`) where its value came from when
// it was not the command line: a user who typed no flag looks for the
// environment variable or the config file's line, so the refusal names
// it. The value itself is not repeated: the error already says what it
// shows of it, and a variable may hold a secret.
func sayWhereSettingCame(fs *pflag.FlagSet, err error) error {
	var ue *UsageError
	if !errors.As(err, &ue) {
		return err
	}
	msg := ue.Error()
	name, ok := strings.CutPrefix(msg, "--")
	if !ok {
		return err
	}
	if end := strings.IndexFunc(name, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' }); end >= 0 {
		name = name[:end]
	}
	fl := fs.Lookup(name)
	if fl == nil || !fl.Changed {
		return err
	}
	if v := fl.Annotations[envSet]; len(v) == 1 {
		return &UsageError{Err: fmt.Errorf("%w (set by %s in the environment)", ue.Err, v[0])}
	}
	if v := fl.Annotations[fileSet]; len(v) == 1 {
		return &UsageError{Err: fmt.Errorf("%w (set by %s in --config %s)", ue.Err, name, v[0])}
	}
	return err
}
