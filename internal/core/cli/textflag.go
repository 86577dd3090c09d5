package cli

import (
	"errors"
	"time"

	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// SizeVar defines a size flag read as every size setting is
// (retention.ParseSize: 1GiB, 64KiB, 1048576), with value as its default.
func SizeVar(fs *pflag.FlagSet, p *int64, name string, value int64, usage string) {
	*p = value
	fs.Var(&textFlag[int64]{p: p, kind: "size", parse: retention.ParseSize, format: retention.FormatBytes,
		refusal: "not a size: " + retention.SizeForms}, name, usage)
}

// DurationVar defines a duration flag read as every user-given duration
// is (validate.ParseDuration: 90s, 2h, 1d, 1d12h), with value as its
// default.
func DurationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(&textFlag[time.Duration]{p: p, kind: "duration", parse: validate.ParseDuration, format: validate.Duration,
		refusal: "not a duration: " + validate.DurationForms}, name, usage)
}

// textFlag is a flag whose value is read by one of the parsers every
// setting of its kind goes through. Its String is the value as it was
// written, so a refusal names it as the operator wrote it (90000s, not
// 25h0m0s), except a zero, which is 0 however written: a flag whose range
// leaves 0 out tells it so. A default never written is printed by format.
type textFlag[T int64 | time.Duration] struct {
	p       *T
	written string
	kind    string
	parse   func(string) (T, bool)
	format  func(T) string
	refusal string
}

func (f *textFlag[T]) Set(s string) error {
	v, ok := f.parse(s)
	if !ok {
		return errors.New(f.refusal)
	}
	*f.p, f.written = v, s
	return nil
}

func (f *textFlag[T]) String() string {
	switch {
	case *f.p == 0:
		return "0"
	case f.written != "":
		return f.written
	}
	return f.format(*f.p)
}

func (f *textFlag[T]) Type() string { return f.kind }
