package cli

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// SingleRoot makes c the whole command line of a binary that does one
// thing (cmd/ql-worker): the same environment rule, usage errors and exit
// codes as the ql tree, and --version.
func SingleRoot(c *cobra.Command) *cobra.Command {
	c.SilenceUsage, c.SilenceErrors = true, true
	withVersionFlag(c, "print the version")
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Err: err}
	})
	c.PersistentPreRunE = func(c *cobra.Command, _ []string) error { return fillFromEnv(c) }
	c.CompletionOptions.DisableDefaultCmd = true
	return c
}

// MainSingle runs a SingleRoot command and returns the process exit code,
// as Main does for the tree.
func MainSingle(ctx context.Context, c *cobra.Command, args []string, stdout, stderr io.Writer) int {
	return execute(ctx, SingleRoot(c), c.Name(), args, stdout, stderr)
}

// RunSingle is the whole main of a one-command binary.
func RunSingle(c *cobra.Command) {
	ctx, stop := signalContext()
	code := MainSingle(ctx, c, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
