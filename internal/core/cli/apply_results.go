package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/plural"
)

// printApplied prints results to the command's output as printResults
// does, every object with --verbose; with -o json it keeps them for the
// document printed at the end.
func printApplied(cmd *cobra.Command, results []apply.Result, line func(apply.Result) string) {
	if g := applyJSONOf(cmd); g != nil {
		g.results = results
		return
	}
	verbose, _ := cmd.Flags().GetBool("verbose") // declared by apply; false on a command without it
	printResults(textWriter{cmd.OutOrStdout()}, results, verbose, line)
}

// printResults prints each object apply created or updated (or, in a dry
// run, would) on its own line, line saying how, and the unchanged ones as
// one line counting them by kind ("1 project, 24 tasks and 1,475 triggers
// unchanged"): a file of thousands of triggers changes a few at a time,
// and a line for each of the rest buried them. verbose prints every
// object on its own line.
func printResults(w io.Writer, results []apply.Result, verbose bool, line func(apply.Result) string) {
	unchanged := map[string]int{}
	for _, r := range results {
		if r.Change == catalog.Unchanged && !verbose {
			unchanged[r.Kind]++
			continue
		}
		fmt.Fprintln(w, line(r))
	}
	var counts []string
	for _, k := range []struct{ kind, one, many string }{{"project", "project", "projects"}, {"task", "task", "tasks"}, {"trigger", "trigger", "triggers"}} {
		if n := unchanged[k.kind]; n > 0 {
			counts = append(counts, strings.Replace(plural.Count(n, k.one, k.many), strconv.Itoa(n), grouped(n), 1))
		}
	}
	if len(counts) > 0 {
		fmt.Fprintln(w, andList(counts)+" unchanged")
	}
}

// grouped writes n with a comma between groups of three digits.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// andList joins items as a sentence lists them: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
