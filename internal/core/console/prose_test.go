package console

import (
	"regexp"
	"strings"
	"testing"
)

// A sentence's backquoted spans become code and nothing else becomes
// markup: the text around them, the spans themselves and a backquote
// without its pair are escaped.
func TestProseMakesOnlyBackquotedSpansCode(t *testing.T) {
	for in, want := range map[string]string{
		"run `ql apply` now":              "run <code>ql apply</code> now",
		"用 `ql runs list` 列出的 ID。":        "用 <code>ql runs list</code> 列出的 ID。",
		"a <b>name</b> & `<i>x</i>` it's": "a &lt;b&gt;name&lt;/b&gt; &amp; <code>&lt;i&gt;x&lt;/i&gt;</code> it&#39;s",
		"`a` and `b":                      "<code>a</code> and `b",
		"no command, UTC+8":               "no command, UTC&#43;8",
	} {
		if got := string(prose(in)); got != want {
			t.Errorf("prose(%q) = %q, want %q", in, got, want)
		}
	}
}

// asShown is msg as a page's source shows it: each command between
// backquotes a code element.
func asShown(msg string) string {
	return regexp.MustCompile("`([^`]*)`").ReplaceAllString(msg, "<code>$1</code>")
}

// unquoted is msg as a page's words read, its commands without the
// backquotes around them.
func unquoted(msg string) string { return strings.ReplaceAll(msg, "`", "") }
