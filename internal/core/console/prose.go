package console

import (
	"fmt"
	"html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// prose is s, a sentence of the catalogue or an error's message, as HTML:
// every character escaped as the templates escape text, and each span
// between a pair of backquotes (the commands the sentence tells the user
// to run, written as in Markdown) a <code> element without them. A
// backquote left without its pair stays as it is. The values put into a
// sentence are escaped like the rest, so what a user typed cannot become
// markup. A command's long flag (--owner, --data-dir) is a span a line
// does not break: a line may break after a hyphen that follows another
// (Unicode's line breaking keeps only a word's first hyphen to its word),
// which would part -- from its name.
func prose(s string) template.HTML {
	var b strings.Builder
	parts := strings.Split(s, "`")
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(escapeText(p))
		case i == len(parts)-1:
			// An odd backquote: no closing one follows.
			b.WriteString("`" + escapeText(p))
		default:
			b.WriteString("<code>" + commandFlag.ReplaceAllString(escapeText(p), `$1<span class="nowrap">$2</span>`) + "</code>")
		}
	}
	return template.HTML(b.String()) //nolint:gosec // G203: every part is escaped above
}

// commandFlag is a long flag of a command: a word of two hyphens and a
// name, after a space or at the command's start.
var commandFlag = regexp.MustCompile(`(^|\s)(--[A-Za-z][A-Za-z0-9-]*)`)

// textEscaper escapes what html/template escapes in text, so a sentence
// without backquotes reads the same in the page's source as before.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;", "\x00", "\uFFFD")

func escapeText(s string) string { return textEscaper.Replace(s) }

// formatProse is format with args put in it (fmt.Sprintf) as prose, but
// for the args that are HTML already (a time fireText made a span of):
// those go in as they are, not escaped a second time.
func formatProse(format string, args ...any) template.HTML {
	return formatWith(prose, format, args...)
}

// formatText is formatProse for a sentence whose backquotes are its own
// (a payload's reason, a stored value), escaped as text whole.
func formatText(format string, args ...any) template.HTML {
	return formatWith(func(s string) template.HTML { return template.HTML(escapeText(s)) }, format, args...) //nolint:gosec // G203: escaped
}

// formatWith is format with args put in it, made HTML by escape but for
// the args that are HTML already, which go in as they are.
func formatWith(escape func(string) template.HTML, format string, args ...any) template.HTML {
	var marked []string
	args = slices.Clone(args)
	for i, a := range args {
		if h, ok := a.(template.HTML); ok {
			args[i] = htmlMark(len(marked))
			marked = append(marked, string(h))
		}
	}
	out := string(escape(fmt.Sprintf(format, args...)))
	for i, h := range marked {
		out = strings.ReplaceAll(out, htmlMark(i), h)
	}
	return template.HTML(out) //nolint:gosec // G203: the rest is escaped by prose, the marked parts were HTML
}

// htmlMark stands for formatProse's i-th HTML argument until the text
// around it is escaped: characters of the private use area, which no
// catalogue sentence holds and the escaping keeps.
func htmlMark(i int) string { return "\uE000" + strconv.Itoa(i) + "\uE001" }
