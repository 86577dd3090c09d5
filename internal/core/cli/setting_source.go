package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// fileSet marks a flag whose value came from the config file (its path,
// then its key as the file writes it: retention.runs for a section's), as
// envSet marks one from the environment.
const fileSet = "ql-file-set"

// SayWhereSettingCame adds to a usage error that begins by naming a
// setting (`--concurrency 0 is outside …`) where its value came from when
// it was not the command line: a user who typed no flag looks for the
// environment variable or the config file's line, so the refusal names
// it. The value itself is not repeated: the error already says what it
// shows of it, and a variable may hold a secret.
func SayWhereSettingCame(fs *pflag.FlagSet, err error) error {
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
	if from := settingSource(fl); from != "" {
		return &UsageError{Err: fmt.Errorf("%w (set by %s)", ue.Err, from)}
	}
	return err
}

// settingSource says where a flag set outside the command line got its
// value — "QL_CONCURRENCY in the environment", "concurrency in --config
// FILE" — and "" when the command line set it.
func settingSource(fl *pflag.Flag) string {
	if v := fl.Annotations[envSet]; len(v) == 1 {
		return v[0] + " in the environment"
	}
	if v := fl.Annotations[fileSet]; len(v) == 2 {
		return v[1] + " in --config " + v[0]
	}
	return ""
}

// GivenAs names each of the named flags fs has set the way its user gave
// it: --name from the command line, else where it came from
// (settingSource), so a refusal of a setting nobody typed points at the
// variable or the file line that holds it.
func GivenAs(fs *pflag.FlagSet, names ...string) []string {
	var out []string
	for _, n := range names {
		fl := fs.Lookup(n)
		if fl == nil || !fl.Changed {
			continue
		}
		if from := settingSource(fl); from != "" {
			out = append(out, from)
		} else {
			out = append(out, "--"+n)
		}
	}
	return out
}
