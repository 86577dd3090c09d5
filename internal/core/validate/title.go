package validate

import (
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
	if strings.TrimSpace(s) != s {
		return qlerror.New(qlerror.Invalid, "%s: must not start or end with spaces", field)
	}
	return nil
}
