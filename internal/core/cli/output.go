package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// addOutputFlag registers --output table|json.
func addOutputFlag(c *cobra.Command, out *string) {
	c.Flags().StringVarP(out, "output", "o", "table", OutputFlagUsage)
}

// OutputFlagUsage is the help of every -o flag. A table escapes the
// control and text-direction characters of what it shows; JSON carries
// every text as stored, as JSON escaping is its reader's job.
const OutputFlagUsage = "output format: table (control and text-direction characters escaped) or json (text as stored)"

func checkOutput(out string) error {
	if out != "table" && out != "json" {
		return Usagef("--output %q is not one of table, json", out)
	}
	return nil
}

// writeJSON writes v with its text as stored: nothing in it is escaped
// for a terminal as a table is, because a JSON reader gets the text
// itself, and escaping it where it is shown is that reader's job.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
			// Wrapped, so that -o json's error line names its reason.
			return Usagef("%w", err)
		}
		return nil
	}
}

// oneID takes one id of a kind, as the command lister (its words after
// the binary) prints it. Both refusals name that command with the location
// flags this one was given: pasted without them, it would list another
// database's ids, or find none.
func oneID(usage, kind string, lister ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		printed := "as printed by `" + suggest(cmd, lister...) + "`"
		if len(args) != 1 {
			return Usagef("%s, %s", usage, printed)
		}
		return notAnID(kind, args[0], printed)
	}
}

// RefusalArgumentNotAnID is the reason of a command's refusal of an
// argument where an id is needed that is no id: a name, an id cut short
// when copied, a number.
const RefusalArgumentNotAnID qlerror.Reason = "argument_not_an_id"

// notAnID refuses value, given where an id of kind is needed, unless it is
// one, saying where such ids are printed.
func notAnID(kind, value, printed string) error {
	if err := ids.Validate(kind, value); err != nil {
		return &UsageError{Err: qlerror.New(qlerror.Invalid, "%v; give a %s %s", err, kind, printed).
			Because(RefusalArgumentNotAnID, "kind", kind, "value", value)}
	}
	return nil
}

// oneName takes one object name (a token's, a user's).
func oneName(usage, field string) cobra.PositionalArgs {
	return oneChecked(usage, func(s string) error { return validate.Name(field, s) })
}

// listing is what a list verb prints: its JSON document (an object of
// the page's items and its "next" cursor, as the API answers), or a table
// of its items under header, one row of cells each; next, when set, is the
// keyset cursor of the following page.
type listing[T any] struct {
	json   any
	header []string
	items  []T
	row    func(T) []string
	// notes follow the table, one a line: what a cell is too narrow for.
	notes []string
	next  string
	// none is what a table with no row says instead (NoneLine).
	none string
}

// printListing prints l as out asks (table or json); a table is followed
// on standard error by "more: --after NEXT" when a page follows, which the
// JSON document carries itself.
func printListing[T any](cmd *cobra.Command, out string, l listing[T]) error {
	w := cmd.OutOrStdout()
	if out == "json" {
		return writeJSON(w, l.json)
	}
	tw := NewTable(w)
	fmt.Fprintln(tw, strings.Join(l.header, "\t"))
	for _, it := range l.items {
		row := l.row(it)
		for i, cell := range row {
			row[i] = oneLine(cell)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range l.notes {
		fmt.Fprintln(w, oneLine(n))
	}
	if len(l.items) == 0 && l.none != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), oneLine(l.none))
	}
	printMore(cmd, l.next)
	return nil
}

// NoneLine is what every list verb prints after a table with no row: one
// line on standard error, so a script reading standard output sees the
// header alone, as for any other empty table, while a person learns the
// list is empty and not cut short. It says there are none of kind, and
// either that the filters the command was given matched none (filtered)
// or how to make one (how). JSON stays an empty array. The same rule for
// every list: runs, triggers, notifications, secrets, tokens, users and
// the cluster's workers.
func NoneLine(kind string, filtered bool, how string) string {
	if filtered {
		return "no " + kind + " matches the filters given"
	}
	return "no " + kind + " yet: " + how
}

// printMore says on standard error how to list the page after this one,
// when one follows.
func printMore(cmd *cobra.Command, next string) {
	if next != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "more: --after %s\n", next)
	}
}

// writeCompactJSON writes v on one line: a line a script reads as the
// last of standard error.
func writeCompactJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
