package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/cli"
)

func walk(c *cobra.Command, visit func(*cobra.Command)) {
	visit(c)
	for _, sub := range c.Commands() {
		walk(sub, visit)
	}
}

// pflag takes the first `quoted` word of a usage string as the flag's
// value name ("--role-prefix ql db roles"), so no usage may hold one.
func TestNoFlagUsageHoldsBackquotes(t *testing.T) {
	t.Parallel()
	flags := 0
	walk(cli.NewRoot(options()), func(c *cobra.Command) {
		visit := func(fl *pflag.Flag) {
			flags++
			if strings.Contains(fl.Usage, "`") {
				t.Errorf("%s --%s: usage %q holds a backquote", c.CommandPath(), fl.Name, fl.Usage)
			}
		}
		c.LocalFlags().VisitAll(visit)
		c.PersistentFlags().VisitAll(visit)
	})
	if flags < 30 {
		t.Fatalf("visited %d flags; the walk missed commands", flags)
	}
}
