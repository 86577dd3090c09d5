package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
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

// The quick start (`go run ./cmd/ql serve --example` in the checkout) and
// `go build` leave nothing git would offer to commit: the database with its
// WAL files, the logs, the secrets and owner files, the server's lock
// file, and the binaries.
func TestGitIgnoresWhatTheQuickStartCreates(t *testing.T) {
	t.Parallel()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		// CI always runs in a clone, so there the check must happen.
		if os.Getenv("CI") != "" {
			t.Fatalf("not a git checkout under CI (%v): the ignore rules cannot be checked", err)
		}
		t.Skipf("not a git checkout (%v): nothing to ignore", err)
	}
	l := server.LayoutOf(".")
	paths := []string{l.DB, l.DB + "-wal", l.DB + "-shm", filepath.Join(l.Logs, "attempt.log"), l.Secrets,
		filepath.Join(l.Owners, "owner"), l.Lock, l.DB + sqlitestore.OpenLockSuffix, l.DB + server.VacuumSuffix, "ql", "ql-edge"}
	cmd := exec.Command("git", append([]string{"check-ignore", "--no-index", "--"}, paths...)...)
	cmd.Dir = strings.TrimSpace(string(top))
	out, _ := cmd.Output()
	ignored := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		ignored[line] = true
	}
	for _, p := range paths {
		if !ignored[p] {
			t.Errorf("%s is not ignored by .gitignore", p)
		}
	}
}

// Every group of the full binary, `db` included, refuses an unknown
// subcommand as a usage error.
func TestEveryGroupOfTheFullBinaryRefusesAnUnknownSubcommand(t *testing.T) {
	t.Parallel()
	groups := 0
	walk(cli.NewRoot(options()), func(c *cobra.Command) {
		if !c.HasSubCommands() {
			return
		}
		groups++
		args := append(strings.Fields(c.CommandPath())[1:], "lst")
		var out, errOut bytes.Buffer
		if code := cli.Main(context.Background(), options(), args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--help") {
			t.Errorf("ql %s: exit %d %q; want 2 with a hint", strings.Join(args, " "), code, errOut.String())
		}
	})
	if groups < 6 {
		t.Fatalf("walked %d groups", groups)
	}
}
