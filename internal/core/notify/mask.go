package notify

import (
	"bytes"
	"cmp"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// secretMask replaces the values of a channel's secrets in a text by
// their names ("<secret NAME>"): as given, and escaped as a quoted string
// shows them.
type secretMask struct {
	forms []maskedForm
}

type maskedForm struct {
	value, marker string
}

// newSecretMask is the mask of channel c's secrets, whose values are sec.
func newSecretMask(c Channel, sec Secrets) secretMask {
	var m secretMask
	for _, name := range c.Refs() {
		v := sec[name]
		if len(v) < minRedacted {
			continue
		}
		marker := maskOfSecret(name)
		forms := []string{v}
		if name == c.URLSecret {
			// A receiver may echo a part of the URL alone (a web
			// framework's "Cannot POST /bot<token>/…").
			forms = append(forms, urlParts(v)...)
		}
		for _, f := range forms {
			quoted := strconv.Quote(f)
			m.forms = append(m.forms, maskedForm{f, marker})
			if inner := quoted[1 : len(quoted)-1]; inner != f {
				m.forms = append(m.forms, maskedForm{inner, marker})
			}
		}
	}
	// A value that holds another is replaced whole, before the one it
	// holds could cut it in pieces that show.
	slices.SortStableFunc(m.forms, func(a, b maskedForm) int { return cmp.Compare(len(b.value), len(a.value)) })
	return m
}

// apply is text with every secret value replaced by its marker.
func (m secretMask) apply(text string) string {
	for _, f := range m.forms {
		text = strings.ReplaceAll(text, f.value, f.marker)
	}
	return text
}

// readLimit is how much of a refusing answer to read so that a secret
// value that starts within the maxSnippet bytes quoted is read whole, and
// masked whole, before the quote is cut; one byte more says whether the
// answer goes on past the cut.
func (m secretMask) readLimit() int64 {
	longest := 0
	for _, f := range m.forms {
		longest = max(longest, len(f.value))
	}
	return int64(maxSnippet + longest + 1)
}

// saying quotes what a receiver answered, for a reason: its secrets
// masked first, then cut to maxSnippet bytes (cutPoint), so a value the
// cut would cross shows none of itself; escaped as a Go string, so its
// control bytes and NULs reach neither a terminal nor the store.
// PostgreSQL refuses a NUL or bytes that are not UTF-8 in text, and a
// failure it cannot record leaves its row to be claimed again after each
// lease, never dead.
func (m secretMask) saying(answer []byte) string {
	answer = bytes.TrimSpace(answer)
	if len(answer) == 0 {
		return " with an empty body"
	}
	text := m.apply(string(answer))
	return ": " + strconv.Quote(text[:cutPoint(text, maxSnippet)])
}

// secretMarker is what a masked secret value reads as.
var secretMarker = regexp.MustCompile(`<secret [A-Za-z0-9_.-]+>`)

// cutPoint is where to cut s to at most n bytes: at the start of a
// character, so what is kept stays UTF-8, and before a secret's marker
// the cut would cross, so no part of one is left.
func cutPoint(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	for _, span := range secretMarker.FindAllStringIndex(s, -1) {
		if span[0] < cut && cut < span[1] {
			return span[0]
		}
	}
	return cut
}

// urlParts are the parts of a URL held in a secret that a receiver may
// echo in a refusal without the rest (a web framework's "Cannot POST
// /bot<token>/sendMessage", a proxy quoting the request line): its
// request URI, path and query, and each path segment and query value, where
// the services keep their tokens (Telegram's and Slack's in the path,
// DingTalk's and WeCom's in the query), each of minURLSegment bytes or
// more: shorter ones ("hook", "api", "json") are ordinary words whose
// replacement would blot out the rest of the message, the channel's name
// included.
func urlParts(v string) []string {
	u, err := url.Parse(v)
	if err != nil {
		return nil
	}
	var parts []string
	add := func(p string, least int) {
		if len(p) >= least {
			parts = append(parts, p)
		}
	}
	add(u.RequestURI(), minURLSegment)
	add(u.EscapedPath(), minURLSegment)
	add(u.RawQuery, minURLSegment)
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		add(seg, minURLSegment)
		if unescaped, err := url.PathUnescape(seg); err == nil && unescaped != seg {
			add(unescaped, minURLSegment)
		}
	}
	for _, vs := range u.Query() {
		for _, qv := range vs {
			add(qv, minURLSegment)
		}
	}
	return parts
}

// minURLSegment is the shortest part of a secret URL a secretMask looks for:
// tokens are longer, path words and query values ("hook", "json") shorter.
const minURLSegment = 8
