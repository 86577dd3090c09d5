package validate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// MaxTitleLen bounds a display title in characters (runes), not bytes: a
// title is for people, in any script, and a Chinese character is three
// bytes of UTF-8.
const MaxTitleLen = 80

// The reasons of a title's refusals, with the params their sentences name.
const (
	// RefusalTitleTooLong is a title over MaxTitleLen characters: field,
	// count, limit.
	RefusalTitleTooLong qlerror.Reason = "title_too_long"
	// RefusalTitleNotOneLine is a title holding a line break or another
	// control character: field.
	RefusalTitleNotOneLine qlerror.Reason = "title_not_one_line"
	// RefusalTitleDirection is a title holding a text-direction
	// character (IsBidiControl): field, char.
	RefusalTitleDirection qlerror.Reason = "title_direction_character"
)

// Title checks an optional display title: "" (none), or one line of UTF-8
// text without control characters or surrounding spaces, at most
// MaxTitleLen characters. A title is shown beside a name, never instead of
// it, so it needs no shape of its own.
func Title(field, s string) error {
	if !utf8.ValidString(s) {
		return qlerror.New(qlerror.Invalid, "%s: is not valid UTF-8 text; save the file as UTF-8", field).Because(RefusalNotUTF8, "field", field)
	}
	if n := utf8.RuneCountInString(s); n > MaxTitleLen {
		return qlerror.New(qlerror.Invalid, "%s: %d characters, the limit is %d; shorten the title", field, n, MaxTitleLen).
			Because(RefusalTitleTooLong, "field", field, "count", n, "limit", MaxTitleLen)
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return qlerror.New(qlerror.Invalid, "%s: must be one line of text, without line breaks, tabs or other control characters", field).
			Because(RefusalTitleNotOneLine, "field", field)
	}
	// A title is sent as plain text too (a chat message, an email's
	// subject), where nothing isolates it: a direction override in it
	// would reorder the name and the outcome written after it.
	if i := strings.IndexFunc(s, IsBidiControl); i >= 0 {
		c, _ := utf8.DecodeRuneInString(s[i:])
		return qlerror.New(qlerror.Invalid, "%s: holds %U, a text-direction character, which would reorder the names written after the title where it is shown as plain text; remove it (right-to-left text needs none)", field, c).
			Because(RefusalTitleDirection, "field", field, "char", fmt.Sprintf("%U", c))
	}
	if strings.TrimSpace(s) != s {
		return qlerror.New(qlerror.Invalid, "%s: must not start or end with spaces", field)
	}
	return nil
}

// IsBidiControl reports the characters that change the direction in which
// the text around them is shown (marks, embeddings, overrides, isolates).
func IsBidiControl(c rune) bool {
	return c == '\u061c' || c == '\u200e' || c == '\u200f' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')
}
