package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// The leaf commands a newcomer reaches first each show an Examples
// section, and every example is a real command line of the full binary:
// it names that command, and its flags and their values parse as the
// command's own (shell redirections and trailing comments aside).
func TestTheCommandsANewcomerReachesFirstShowExamplesThatParse(t *testing.T) {
	t.Parallel()
	root := cli.NewRoot(options())
	for _, path := range []string{"apply", "runs list", "runs show", "triggers list", "triggers show", "triggers pause", "triggers backfill", "workers create", "db migrate"} {
		c, _, err := root.Find(strings.Fields(path))
		if err != nil || c.CommandPath() != "ql "+path {
			t.Fatalf("ql %s: not found (%v)", path, err)
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("ql %s --help shows no example", path)
			continue
		}
		for _, line := range strings.Split(c.Example, "\n") {
			args := exampleArgs(line, path)
			if args == nil {
				t.Errorf("ql %s: the example %q does not run ql %s", path, line, path)
				continue
			}
			if err := parsesAs(c, args); err != nil {
				t.Errorf("ql %s: the example %q does not parse: %v", path, line, err)
			}
		}
	}
}

// exampleArgs is the arguments an example line gives the command path,
// without an environment assignment before it, a redirection or a
// comment after them; nil when the line does not run it.
func exampleArgs(line, path string) []string {
	line, _, _ = strings.Cut(line, "#")
	fields := shellWords(line)
	for len(fields) > 0 && strings.Contains(fields[0], "=") {
		fields = fields[1:]
	}
	want := append([]string{"ql"}, strings.Fields(path)...)
	if len(fields) < len(want) || strings.Join(fields[:len(want)], " ") != strings.Join(want, " ") {
		return nil
	}
	args := []string{}
	for _, f := range fields[len(want):] {
		if f == "<" || f == ">" {
			break
		}
		args = append(args, f)
	}
	return args
}

// shellWords splits line at spaces as the shell does, a 'quoted' span
// being one word without its quotes.
func shellWords(line string) []string {
	var words []string
	for i, part := range strings.Split(line, "'") {
		if i%2 == 1 {
			words = append(words, part)
			continue
		}
		words = append(words, strings.Fields(part)...)
	}
	return words
}

// parsesAs parses args with c's flags on a copy of them, and checks c's
// positional arguments rule.
func parsesAs(c *cobra.Command, args []string) error {
	fs := c.Flags()
	defer fs.VisitAll(func(f *pflag.Flag) { f.Changed = false })
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.Args != nil {
		return c.Args(c, fs.Args())
	}
	return nil
}

// The root help points a newcomer to the one command that shows QingLong
// working, and the triggers group's summary names what it does beyond
// inspecting: running, pausing, backfilling.
func TestTheRootHelpPointsToTheSampleAndNamesWhatTriggersDo(t *testing.T) {
	t.Parallel()
	root := cli.NewRoot(options())
	if !strings.Contains(root.Long, "To try it: `ql serve --example` serves ./qinglong.db with sample triggers") {
		t.Errorf("the root help does not point to ql serve --example:\n%s", root.Long)
	}
	c, _, err := root.Find([]string{"triggers"})
	if err != nil || !strings.Contains(c.Short, "run, pause") || !strings.Contains(c.Short, "backfill") {
		t.Errorf("ql triggers' summary %q does not say it runs, pauses and backfills (%v)", c.Short, err)
	}
}
