package singlecli

import (
	"strings"
	"testing"
	"unicode"
)

// columnStarts is where each cell of a table line starts, in terminal
// columns: a cell starts after two spaces or more, and a Chinese
// character takes two columns.
func columnStarts(line string) []int {
	var starts []int
	col, spaces := 0, 2
	for _, r := range line {
		if r == ' ' {
			spaces++
		} else {
			if spaces >= 2 {
				starts = append(starts, col)
			}
			spaces = 0
		}
		col++
		if unicode.Is(unicode.Han, r) {
			col++
		}
	}
	return starts
}

// A Chinese title sits in its natural column, beside the name, and the
// columns after it start where the header's do on every row: tables are
// laid out by the columns a terminal shows, two for a Chinese character.
func TestTablesAlignChineseTitlesByDisplayWidth(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, titledFile)
	applyDefs(t, dir, strings.Replace(quietFile, "project: api\n", "project: zz\n", 1))
	for _, c := range []struct {
		args   []string
		header string
		titled string
	}{
		{[]string{"triggers", "list"}, "PROJECT  TRIGGER  TITLE     REV", "api      yearly   每日签到  1"},
		{[]string{"projects", "list"}, "PROJECT  TITLE     STATUS", "api      京东助手  active"},
	} {
		code, out, errOut := ql(t, append(c.args, "--data-dir", dir)...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], c.header) || !strings.HasPrefix(lines[1], c.titled) {
			t.Fatalf("%v: %d %q %q; want the title beside the name:\n%s\n%s", c.args, code, out, errOut, c.header, c.titled)
		}
		want := columnStarts(lines[0])
		for _, line := range lines[1:] {
			if got := columnStarts(line); !equalInts(got, want) {
				t.Errorf("%v: row %q starts its columns at %v; the header's start at %v", c.args, line, got, want)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
