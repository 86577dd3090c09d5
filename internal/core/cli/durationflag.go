package cli

import (
	"errors"
	"time"

	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// DurationVar defines a duration flag read as every user-given duration
// is (validate.ParseDuration: 90s, 2h, 1d, 1d12h), with value as its
// default. The flag's String is the value as it was written, so a refusal
// names it as the operator wrote it (90000s, not 25h0m0s), except a zero,
// which is 0 however written: a flag whose range leaves 0 out tells it so.
func DurationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(&durationFlag{p: p}, name, usage)
}

type durationFlag struct {
	p       *time.Duration
	written string
}

func (f *durationFlag) Set(s string) error {
	d, ok := validate.ParseDuration(s)
	if !ok {
		return errors.New("not a duration: " + validate.DurationForms)
	}
	*f.p, f.written = d, s
	return nil
}

func (f *durationFlag) String() string {
	switch {
	case *f.p == 0:
		return "0"
	case f.written != "":
		return f.written
	}
	return validate.Duration(*f.p)
}

func (f *durationFlag) Type() string { return "duration" }
