package cli

import "github.com/spf13/pflag"

// ListVar defines a flag of comma-separated values that may also be given
// more than once, each use adding to the list: `--server a --server b`
// means both, as `--server a,b` does. A plain string flag keeps only its
// last use, so a second --server silently dropped the first.
func ListVar(fs *pflag.FlagSet, p *string, name, usage string) {
	fs.Var(&listFlag{p: p}, name, usage+" (comma-separated, or the flag repeated)")
}

type listFlag struct {
	p   *string
	set bool
}

func (l *listFlag) Set(v string) error {
	if l.set && *l.p != "" && v != "" {
		*l.p += "," + v
	} else if !l.set || v != "" {
		*l.p = v
	}
	l.set = true
	return nil
}

func (l *listFlag) String() string { return *l.p }

func (l *listFlag) Type() string { return "list" }
