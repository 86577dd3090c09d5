package notify

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Limits of the output a notification quotes.
const (
	// MaxOutputLines is the most lines a channel's output setting asks for.
	MaxOutputLines = 50
	// MaxOutputBytes caps the quoted output, so that a message stays
	// within every service's size limit (WeCom's robot takes 2,048 bytes
	// of text, title and detail lines included).
	MaxOutputBytes = 1000
	// OutputReadBytes is how much of a log's end the stores read for it:
	// room for the lines kept and the escape sequences dropped from them.
	OutputReadBytes = 4096
)

// OutputLines is the most output lines any channel of s quotes: zero when
// none does, so a store reads no log for a project that quotes none.
func (s Spec) OutputLines() int {
	n := 0
	for _, c := range s.Channels {
		n = max(n, c.Output)
	}
	return n
}

// OutputTail is the last lines of a command's output as a notification
// quotes it, from tail, the last bytes of the attempt's log (whole says
// they are the whole log; otherwise the first line, most likely cut, is
// left out). The text is what a terminal would have shown: terminal
// escape sequences (colours) are dropped, a line rewritten after a
// carriage return (a progress bar) shows its last state, other control
// characters and invalid UTF-8 become U+FFFD, and blank lines at the end
// are left out. At most lines lines and MaxOutputBytes bytes, cut at a line
// start (a single longer line keeps its end, after "…").
func OutputTail(tail []byte, whole bool, lines int) string {
	if lines <= 0 || len(tail) == 0 {
		return ""
	}
	if !whole {
		i := bytes.IndexByte(tail, '\n')
		if i < 0 {
			return ""
		}
		tail = tail[i+1:]
	}
	all := strings.Split(string(tail), "\n")
	var kept []string
	size := 0
	for i := len(all) - 1; i >= 0 && len(kept) < lines; i-- {
		line := terminalLine(all[i])
		if len(kept) == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		if size+len(line)+1 > MaxOutputBytes {
			if len(kept) == 0 {
				kept = append(kept, "…"+lastBytes(line, MaxOutputBytes-len("…")))
			}
			break
		}
		size += len(line) + 1
		kept = append(kept, line)
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	return strings.Join(kept, "\n")
}

// terminalLine is one line of output as a terminal shows it: the text
// after its last carriage return, without escape sequences, with tabs
// kept and every other control character or invalid byte as U+FFFD.
func terminalLine(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == '\t':
			b.WriteByte('\t')
		case r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return strings.TrimRight(b.String(), " \t")
}

// escapeLen is the length of the escape sequence at the start of s (which
// starts with ESC): a CSI sequence (ESC [ parameters final byte), an OSC
// sequence ended by BEL or ESC \, or ESC and one more character.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// lastBytes is the end of s in at most n bytes, starting at a rune.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
