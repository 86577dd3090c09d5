package cli

import (
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
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
// are not UTF-8 (a lone 0x9b is CSI to some terminals). p must not end in
// the middle of a UTF-8 sequence (see escaper).
func appendEscaped(dst, p []byte) []byte {
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size == 1:
			dst = fmt.Appendf(dst, `\x%02x`, p[0])
		case r == '\n' || r == '\t':
			dst = append(dst, p[0])
		case r < 0x20 || r == 0x7f:
			dst = fmt.Appendf(dst, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, p[:size]...)
		}
		p = p[size:]
	}
	return dst
}

// escaper is an io.Writer that escapes what it writes (appendEscaped); a
// UTF-8 sequence split between two writes is held back until it is whole.
// Flush writes what is held at the end.
type escaper struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

func (e *escaper) Write(p []byte) (int, error) {
	data := append(e.pending, p...)
	cut := len(data) - partialRuneSuffix(data)
	e.buf = appendEscaped(e.buf[:0], data[:cut])
	e.pending = append(make([]byte, 0, utf8.UTFMax), data[cut:]...)
	if _, err := e.w.Write(e.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush escapes and writes a trailing incomplete sequence, byte by byte.
func (e *escaper) Flush() error {
	if len(e.pending) == 0 {
		return nil
	}
	_, err := e.w.Write(appendEscaped(nil, e.pending))
	e.pending = nil
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
