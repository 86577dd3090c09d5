package cli

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// SizeVar defines a size flag read as every size setting is
// (retention.ParseSize: 1GiB, 64KiB, 1048576), with value as its default.
// Its String is the value as it was written, so a refusal names it as the
// operator wrote it, except a zero, which is 0 however written: a flag
// whose range leaves 0 out tells it so.
func SizeVar(fs *pflag.FlagSet, p *int64, name string, value int64, usage string) {
	*p = value
	fs.Var(&sizeFlag{p: p}, name, usage)
}

type sizeFlag struct {
	p       *int64
	written string
}

func (f *sizeFlag) Set(s string) error {
	n, ok := retention.ParseSize(s)
	if !ok {
		return errors.New("not a size: " + retention.SizeForms)
	}
	*f.p, f.written = n, s
	return nil
}

func (f *sizeFlag) String() string {
	switch {
	case *f.p == 0:
		return "0"
	case f.written != "":
		return f.written
	}
	return retention.FormatBytes(*f.p)
}

func (f *sizeFlag) Type() string { return "size" }
