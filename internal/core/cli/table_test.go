package cli

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

// A cell is a text and the columns a terminal gives it, counted by hand:
// two a CJK character or emoji, none a combining mark.
type shownCell struct {
	text string
	cols int
}

// Rows mixing ASCII, Chinese, emoji and a combining mark line up: every
// column starts at the same terminal column on every row, the widest
// cell's width plus two spaces after the column before.
func TestTableRowsOfMixedASCIICJKAndEmojiAlign(t *testing.T) {
	t.Parallel()
	rows := [][]shownCell{
		{{"PROJECT", 7}, {"TITLE", 5}, {"NOTE", 4}, {"END", 3}},
		{{"api", 3}, {"每日签到", 8}, {"ok", 2}, {"1", 1}},
		{{"京东", 4}, {"🚀 launch", 9}, {"cafe\u0301", 4}, {"2", 1}},
		{{"ｆｕｌｌ", 8}, {"x", 1}, {"✅done", 6}, {"3", 1}},
	}
	widths := make([]int, len(rows[0])-1)
	for _, r := range rows {
		for j := range widths {
			widths[j] = max(widths[j], r[j].cols+2)
		}
	}
	var want, in strings.Builder
	for _, r := range rows {
		for j, c := range r {
			in.WriteString(c.text)
			want.WriteString(c.text)
			if j < len(widths) {
				in.WriteString("\t")
				want.WriteString(strings.Repeat(" ", widths[j]-c.cols))
			}
		}
		in.WriteString("\n")
		want.WriteString("\n")
	}
	var out strings.Builder
	tw := NewTable(&out)
	fmt.Fprint(tw, in.String())
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Fatalf("table:\n%s\nwant (columns at %v):\n%s", out.String(), widths, want.String())
	}
}

// On ASCII text a Table lays out exactly what text/tabwriter did: column
// blocks broken by a line without the column, empty cells, a last cell
// of no column, a line left without its newline.
func TestTableLaysOutASCIIAsTabwriterDid(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"A\tBB\tC\naaaa\tb\tcc\n",
		"\nATTEMPT\tSTATE\tERROR\n1 x\tok\t-\n\nSEQ\tEVENT\tAT\tPAYLOAD\n1\tstart\tt\t{}\n2\tend\tt2\t{\"a\":1}\n",
		"key\tvalue\nlonger key\tv\nno tab here\nk\t\tempty cell\n",
		"a\tb\nc",
		"",
	} {
		var want strings.Builder
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		fmt.Fprint(tw, in)
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		table := NewTable(&got)
		fmt.Fprint(table, in)
		if err := table.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("input %q: table %q, tabwriter %q", in, got.String(), want.String())
		}
	}
}
