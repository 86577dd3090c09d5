package cli

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Every command's long help is wrapped evenly: inside a paragraph no line
// ends before a word that would have fitted on it within the paragraph's
// own width (its longest line). A line broken early ("... starting with
// QL_" then "are reserved ...") reads as if something were missing.
// Indented lines (examples, tables, lists) are laid out by hand and left
// alone, as is a paragraph's last line.
func TestEveryCommandsHelpIsWrappedEvenly(t *testing.T) {
	for _, opts := range []Options{{Binary: "ql"}, {Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil }}} {
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			for _, line := range raggedLines(c.Long) {
				t.Errorf("%s --help (cluster build: %t): a line ends before a word that fits on it:\n%s", c.CommandPath(), opts.OpenPostgres != nil, line)
			}
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(NewRoot(opts))
	}
}

// raggedLines are the lines of text, each with the next one, that end
// inside a sentence before the next line's first word although it would
// have fitted within the width of their neighbours (the longer of the
// lines before and after). A line ending a sentence may be short: some
// texts start each sentence on a line of its own.
func raggedLines(text string) []string {
	var out []string
	for _, para := range strings.Split(text, "\n\n") {
		lines := strings.Split(para, "\n")
		for i := 0; i+1 < len(lines); i++ {
			l, next := lines[i], lines[i+1]
			if indented(l) || indented(next) || strings.TrimSpace(l) == "" || strings.ContainsAny(l[len(l)-1:], ".!?") {
				continue
			}
			width := utf8.RuneCountInString(next)
			if i > 0 && !indented(lines[i-1]) {
				width = max(width, utf8.RuneCountInString(lines[i-1]))
			}
			word, _, _ := strings.Cut(strings.TrimSpace(next), " ")
			if utf8.RuneCountInString(l)+1+utf8.RuneCountInString(word) <= width {
				out = append(out, l+"⏎\n"+next)
			}
		}
	}
	return out
}

// indented: a line laid out by hand (an example, a table row, a list
// item), not part of a wrapped paragraph.
func indented(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ")
}
