package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/cluster/dbcli"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/singlecli"
)

// commandLineOnly are the flags that describe one invocation, not an
// installation, and so have no environment variable.
var commandLineOnly = []string{"help", "version", "file", "dry-run", "output", "project", "trigger", "state", "limit", "after", "count", "tz", "no-descriptions",
	"follow", "max-concurrency", "note", "runs", "ledger", "request-id", "force", "from", "to", "max", "scope", "expires", "role", "owner", "password-stdin",
	"attempt", "exit-status", "quick", "if-match", "keep-old", "worker", "verbose", "search", "tail", "clock-behind-ok", "system", "account", "match", "exclude",
	"take-back", "with-state", "all", "adopt-state", "create-only", "yes", "since", "actor", "action", "every-project", "recursive", "archive",
	"branch", "cron", "disabled", "enabled", "url", "with-folder", "apply", "registry", "proxy"}

// sampleOf is a value a flag of each type accepts, as its variable would
// give it and as the flag prints it back.
var sampleOf = map[string]string{"string": "v7", "list": "v7,w8", "bool": "true", "int": "7", "int64": "7", "duration": "7s", "size": "7MiB"}

// envFlags walks a tree and returns its environment-bound flags by command
// path, checking on the way that every other flag is command-line only and
// that a name is bound on every command having it or on none.
func envFlags(t *testing.T, root *cobra.Command) map[string][]*pflag.Flag {
	t.Helper()
	out := map[string][]*pflag.Flag{}
	bound := map[string]bool{}
	walk(root, func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.Flags().AddFlagSet(c.InheritedFlags())
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden {
				return
			}
			b := cli.EnvBound(fl)
			if was, seen := bound[fl.Name]; seen && was != b {
				t.Errorf("%s --%s: bound to the environment on some commands and not on others", c.CommandPath(), fl.Name)
			}
			bound[fl.Name] = b
			switch {
			case b:
				out[c.CommandPath()] = append(out[c.CommandPath()], fl)
			case !slices.Contains(commandLineOnly, fl.Name):
				t.Errorf("%s --%s has no environment variable; bind it with cli.BindEnv, or list it as command-line only", c.CommandPath(), fl.Name)
			}
		})
	})
	return out
}

// Not parallel: sets the environment. Every flag of every command of both
// binaries either reads QL_ and its name in upper snake case, and setting
// that variable really sets the flag, or is listed as command-line only.
func TestEveryFlagReadsItsVariableByOneRule(t *testing.T) {
	for _, build := range []cli.Options{options(), singlecli.Options("ql-edge")} {
		byCommand := envFlags(t, cli.NewRoot(build))
		if len(byCommand) < 6 {
			t.Fatalf("%s: %d commands have environment-bound flags; the walk missed some", build.Binary, len(byCommand))
		}
		for path, flags := range byCommand {
			root := cli.NewRoot(build)
			cmd, _, err := root.Find(strings.Fields(path)[1:])
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			cmd.Args = cobra.ArbitraryArgs
			cmd.RunE = func(c *cobra.Command, _ []string) error {
				for _, fl := range flags {
					got[fl.Name] = c.Flags().Lookup(fl.Name).Value.String()
				}
				return nil
			}
			for _, fl := range flags {
				sample, ok := sampleOf[fl.Value.Type()]
				if !ok {
					t.Fatalf("%s --%s: no sample value for type %s", path, fl.Name, fl.Value.Type())
				}
				t.Setenv(cli.EnvName(fl.Name), sample)
			}
			root.SetArgs(strings.Fields(path)[1:])
			if err := root.Execute(); err != nil {
				t.Errorf("%s with its variables set: %v", path, err)
				continue
			}
			for _, fl := range flags {
				if want := sampleOf[fl.Value.Type()]; got[fl.Name] != want {
					t.Errorf("%s --%s = %q with %s=%s; want it from the variable", path, fl.Name, got[fl.Name], cli.EnvName(fl.Name), want)
				}
			}
			for _, fl := range flags {
				t.Setenv(cli.EnvName(fl.Name), "")
			}
		}
	}
}

// docSection is the part of docs/operations.md that lists the settings.
func docSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(string(b), "\n## Settings")
	if !ok {
		t.Fatal(`docs/operations.md has no "## Settings" section`)
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// The settings section of docs/operations.md lists every environment
// variable, each beside its flag, and nothing the binary does not read;
// every renamed variable is listed with the name that replaced it.
func TestEveryVariableIsDocumentedAndEveryDocumentedOneExists(t *testing.T) {
	t.Parallel()
	doc := docSection(t)
	rows := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		for _, v := range regexp.MustCompile("`(QL_[A-Z0-9_]*[A-Z0-9])`").FindAllStringSubmatch(line, -1) {
			rows[v[1]] += line
		}
	}
	read := map[string]bool{}
	for _, flags := range envFlags(t, cli.NewRoot(options())) {
		for _, fl := range flags {
			v := cli.EnvName(fl.Name)
			read[v] = true
			if !strings.Contains(rows[v], "`--"+fl.Name+"`") {
				t.Errorf("--%s: docs/operations.md has no row with `%s` and `--%s`", fl.Name, v, fl.Name)
			}
		}
	}
	for _, v := range dbcli.EnvVars() {
		read[v] = true
		if rows[v] == "" {
			t.Errorf("%s (ql db) is not in docs/operations.md's settings", v)
		}
	}
	for _, v := range cli.EnvOnly {
		read[v] = true
		if rows[v] == "" {
			t.Errorf("%s is not in docs/operations.md's settings", v)
		}
	}
	for old, now := range cli.RenamedEnv {
		if !read[now] {
			t.Errorf("%s was renamed %s, which nothing reads", old, now)
		}
		if !strings.Contains(rows[old], "`"+now+"`") {
			t.Errorf("docs/operations.md does not say %s became %s", old, now)
		}
	}
	for v := range rows {
		if _, renamed := cli.RenamedEnv[v]; !read[v] && !renamed {
			t.Errorf("docs/operations.md documents %s, which nothing reads", v)
		}
	}
}
