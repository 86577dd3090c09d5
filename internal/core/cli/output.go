package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// addOutputFlag registers --output table|json.
func addOutputFlag(c *cobra.Command, out *string) {
	c.Flags().StringVarP(out, "output", "o", "table", "output format: table or json")
}

func checkOutput(out string) error {
	if out != "table" && out != "json" {
		return Usagef("--output %q is not one of table, json", out)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// fmtMs renders epoch milliseconds as UTC RFC 3339, "-" for none.
func fmtMs(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// oneArg accepts exactly one argument, else says usage: what the verb
// takes.
func oneArg(usage string) cobra.PositionalArgs {
	return oneChecked(usage, func(string) error { return nil })
}

// oneChecked is oneArg whose argument must also pass check: an id that is
// no id or a name no object can have is a usage error (exit 2) found
// before any database is opened, like a missing argument.
func oneChecked(usage string, check func(string) error) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return Usagef("%s", usage)
		}
		if err := check(args[0]); err != nil {
			return Usagef("%v", err)
		}
		return nil
	}
}

// oneID takes one id of a kind, printed by lister (e.g. `ql runs list`).
func oneID(usage, kind, lister string) cobra.PositionalArgs {
	return oneChecked(usage, func(s string) error {
		if err := ids.Validate(kind, s); err != nil {
			return fmt.Errorf("%v; give a %s as printed by `%s`", err, kind, lister)
		}
		return nil
	})
}

// oneName takes one object name (a token's, a user's).
func oneName(usage, field string) cobra.PositionalArgs {
	return oneChecked(usage, func(s string) error { return validate.Name(field, s) })
}

// listing is what a list verb prints: its JSON document, or a table of
// its items under header, one row of cells each; next, when set, is the
// keyset cursor of the following page.
type listing[T any] struct {
	json   any
	header []string
	items  []T
	row    func(T) []string
	next   string
}

// printListing prints l as out asks (table or json); a table is followed
// on standard error by "more: --after NEXT" when a page follows.
func printListing[T any](cmd *cobra.Command, out string, l listing[T]) error {
	w := cmd.OutOrStdout()
	if out == "json" {
		return writeJSON(w, l.json)
	}
	tw := newTable(w)
	fmt.Fprintln(tw, strings.Join(l.header, "\t"))
	for _, it := range l.items {
		fmt.Fprintln(tw, strings.Join(l.row(it), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if l.next != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "more: --after %s\n", l.next)
	}
	return nil
}
