package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-isatty"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// isTerminal reports whether w is a terminal, where a task's output could
// move the cursor, retitle the window, rewrite the screen or answer back
// through escape sequences.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// appendEscaped appends p to dst with every byte or character a terminal
// would act on instead of showing written as a visible \xNN (or \u00NN)
// escape: C0 controls except newline and tab (ESC, carriage return,
// backspace, BEL, …), DEL, the C1 controls U+0080–U+009F, and bytes that
// are not UTF-8 (a lone 0x9b is CSI to some terminals). With directions,
// the text-direction controls too (validate.IsBidiControl, as \u202e):
// a terminal shows the text around one reordered, so a name or a note
// holding U+202E could make a row or a message read as something else.
// A command's output (`ql runs logs`) keeps them, as right-to-left text
// needs them. p must not end in the middle of a UTF-8 sequence (see
// escaper).
func appendEscaped(dst, p []byte, directions bool) []byte {
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size == 1:
			dst = fmt.Appendf(dst, `\x%02x`, p[0])
		case r == '\n' || r == '\t':
			dst = append(dst, p[0])
		case r < 0x20 || r == 0x7f:
			dst = fmt.Appendf(dst, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, directions && validate.IsBidiControl(r):
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, p[:size]...)
		}
		p = p[size:]
	}
	return dst
}

// userText is s as the CLI prints text it did not write itself (names,
// notes, actors, paths, values an error quotes) in its messages and
// tables: control and text-direction characters escaped (appendEscaped),
// newlines and tabs kept. -o json never passes through it: a JSON
// document carries the text as stored, and escaping it for a terminal is
// its reader's job.
func userText(s string) string {
	return string(appendEscaped(nil, []byte(s), true))
}

// oneLine is userText for one table cell or one line: newlines and tabs
// are escaped too, so a text can neither drive the terminal nor break
// the table.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(userText(s))
}

// textWriter writes what it is given as userText. The CLI writes each of
// its lines or table rows whole (fmt.Fprint*), so no character is split
// between two writes; one that were would be shown as the \xNN escapes of
// its bytes, still nothing a terminal acts on.
type textWriter struct{ w io.Writer }

func (t textWriter) Write(p []byte) (int, error) {
	if _, err := t.w.Write(appendEscaped(nil, p, true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escaper is an io.Writer that escapes what it writes (appendEscaped); a
// UTF-8 sequence split between two writes is held back until it is whole.
// Flush writes what is held at the end.
type escaper struct {
	w       io.Writer
	pending []byte
	buf     []byte
	// open is a line the terminal shows unfinished: the last byte written
	// was not a newline.
	open bool
}

func (e *escaper) Write(p []byte) (int, error) {
	data := append(e.pending, p...)
	cut := len(data) - partialRuneSuffix(data)
	e.buf = appendEscaped(e.buf[:0], data[:cut], false)
	e.pending = append(make([]byte, 0, utf8.UTFMax), data[cut:]...)
	if _, err := e.w.Write(e.buf); err != nil {
		return 0, err
	}
	if len(e.buf) > 0 {
		e.open = e.buf[len(e.buf)-1] != '\n'
	}
	return len(p), nil
}

// EndLine ends the line the output left open on the terminal, so a
// message written to the same terminal (standard error, a follower's
// "(run … ended: …)") starts a line of its own instead of trailing the
// output's last, unfinished one. Only the terminal sees the newline: a
// file or pipe gets the output byte for byte, and never an escaper.
func (e *escaper) EndLine() error {
	if err := e.Flush(); err != nil {
		return err
	}
	if !e.open {
		return nil
	}
	e.open = false
	_, err := io.WriteString(e.w, "\n")
	return err
}

// Flush escapes and writes a trailing incomplete sequence, byte by byte.
func (e *escaper) Flush() error {
	if len(e.pending) == 0 {
		return nil
	}
	_, err := e.w.Write(appendEscaped(nil, e.pending, false))
	e.pending, e.open = nil, true
	return err
}

// partialRuneSuffix is the length of an incomplete UTF-8 sequence at the
// end of p that more bytes could still complete, or 0.
func partialRuneSuffix(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if p[i] >= 0xc0 && !utf8.FullRune(p[i:]) {
				return len(p) - i
			}
			return 0
		}
	}
	return 0
}
