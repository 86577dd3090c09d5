package console

import (
	"strings"
	"unicode/utf8"
)

// logText is a command's output as a Run's page shows it, the same whether
// the server renders it or the script appends it live. The output is bytes
// in no known encoding: a byte that is not part of a UTF-8 character shows
// as U+FFFD; a CR LF, or a CR alone (a progress line written over), ends a
// line, as the HTML parser would make it; and every other control
// character, which a browser draws as nothing or drops (NUL), shows as its
// visible symbol (␛ for ESC, ␀ for NUL; U+FFFD for the C1 controls, which
// have none), so no byte of the output goes unseen.
func logText(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n == 1:
			sb.WriteRune(utf8.RuneError)
		case r == '\r':
			if len(b) > 1 && b[1] == '\n' {
				n = 2
			}
			sb.WriteByte('\n')
		case r == '\t' || r == '\n':
			sb.WriteByte(byte(r))
		case r < 0x20:
			sb.WriteRune(0x2400 + r)
		case r == 0x7f:
			sb.WriteRune('\u2421')
		case r >= 0x80 && r < 0xa0:
			sb.WriteRune(utf8.RuneError)
		default:
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

// heldBack is how many bytes at the end of b a live log keeps for its next
// read, which completes them: a UTF-8 sequence b ends in the middle of (at
// most utf8.UTFMax-1 bytes), or a CR, which may be the first half of a
// CR LF. 0 when b ends on a whole character, or on bytes no more input
// could make valid.
func heldBack(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return 1
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return len(b) - i
			}
			return 0
		}
	}
	return 0
}
