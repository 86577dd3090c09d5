package cli

import (
	"bytes"
	"io"
)

// tablePadding is the space between two columns.
const tablePadding = 2

// Table lays out what is written to it as text/tabwriter does (cells end
// at a tab, a line's last cell belongs to no column, and a column runs
// over consecutive lines that have a cell in it), but measures each cell
// by the columns a terminal gives it (displayWidth): tabwriter counts
// runes, so a Chinese name, title or note, two columns a character,
// pushed every later cell of its row out of line. Its input is written
// as userText: every row is escaped before its cells are measured, so an
// escape widens its column instead of pushing the rest of its row out of
// line, and no cell can reorder or drive the terminal. Every table the
// CLI prints is one (the cluster's commands too).
type Table struct {
	w   io.Writer
	buf []byte
}

// NewTable is a Table writing to w once flushed.
func NewTable(w io.Writer) *Table {
	return &Table{w: w}
}

// Write escapes p (userText) and keeps it until Flush.
func (t *Table) Write(p []byte) (int, error) {
	t.buf = appendEscaped(t.buf, p, true)
	return len(p), nil
}

// Flush lays out and writes what was written since the last Flush.
func (t *Table) Flush() error {
	lines := bytes.Split(t.buf, []byte("\n"))
	l := layout{lines: make([][]tableCell, len(lines))}
	for i, line := range lines {
		cells := bytes.Split(line, []byte("\t"))
		l.lines[i] = make([]tableCell, len(cells))
		for j, c := range cells {
			l.lines[i][j] = tableCell{text: c, width: displayWidth(string(c))}
		}
	}
	l.format(0, len(l.lines))
	t.buf = t.buf[:0]
	_, err := t.w.Write(l.out)
	return err
}

type tableCell struct {
	text  []byte
	width int
}

// layout is one Flush's lines and the widths of the columns the line
// being laid out is in.
type layout struct {
	lines  [][]tableCell
	widths []int
	out    []byte
}

// format lays out lines[line0:line1], whose columns left of
// len(widths) are sized already: each run of consecutive lines with a
// cell in the next column is one column block, as wide as its widest
// cell and the padding, and is laid out with the columns right of it.
func (l *layout) format(line0, line1 int) {
	column := len(l.widths)
	for this := line0; this < line1; this++ {
		if column >= len(l.lines[this])-1 {
			continue
		}
		l.write(line0, this)
		line0 = this
		width := 0
		for ; this < line1 && column < len(l.lines[this])-1; this++ {
			width = max(width, l.lines[this][column].width+tablePadding)
		}
		l.widths = append(l.widths, width)
		l.format(line0, this)
		l.widths = l.widths[:len(l.widths)-1]
		line0 = this
	}
	l.write(line0, line1)
}

// write appends lines[line0:line1], each cell in a sized column padded to
// its width; every line but the last written ends in a newline.
func (l *layout) write(line0, line1 int) {
	for i := line0; i < line1; i++ {
		for j, c := range l.lines[i] {
			l.out = append(l.out, c.text...)
			if j < len(l.widths) {
				l.out = append(l.out, bytes.Repeat([]byte(" "), l.widths[j]-c.width)...)
			}
		}
		if i+1 < len(l.lines) {
			l.out = append(l.out, '\n')
		}
	}
}
