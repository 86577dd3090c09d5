package console

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// workerLabels is a label set as a page shows it: k=v pairs with every
// control and text-direction character written as a visible escape
// (\u202e), as the CLI writes them. The labels a worker adds with --labels
// are its own choice, unchecked by the replica: a U+202E in one would
// otherwise reorder the rest of its row, so that a worker reads as
// carrying labels it does not. The template isolates the result in <bdi>
// too, so right-to-left text that is not a control stays in its cell.
func workerLabels(m map[string]string) string {
	return visibleControls(run.FormatLabels(m))
}

// visibleControls writes the control and text-direction characters of s
// as \uXXXX escapes, keeping everything else.
func visibleControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || validate.IsBidiControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
