package console

import (
	"html/template"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every byte of a command's output shows on a Run's page, as valid text:
// a byte of no UTF-8 character as U+FFFD, a control character as its
// symbol, a CR LF or a lone CR as a line's end; text, tabs and a U+FFFD the
// command wrote itself are kept as they are. What the server renders is
// then escaped whole by the page's template.
func TestEveryByteOfALogShowsAsVisibleText(t *testing.T) {
	for in, want := range map[string]string{
		"plain 中文 text\n\tindented\n":    "plain 中文 text\n\tindented\n",
		"\xff\xfe\xe4\xb8":               "\uFFFD\uFFFD\uFFFD\uFFFD",
		"crlf\r\nprogress 1\rprogress 2": "crlf\nprogress 1\nprogress 2",
		"\x1b[31mred\x1b[0m":             "␛[31mred␛[0m",
		"\x00\x01\x07\x7f":               "␀␁␇␡",
		"c1 \u0085\u009b":                "c1 \uFFFD\uFFFD",
		"written \uFFFD":                 "written \uFFFD",
	} {
		got := logText([]byte(in))
		if got != want || !utf8.ValidString(got) {
			t.Errorf("logText(%q) = %q, want %q", in, got, want)
		}
	}
	var out strings.Builder
	tmpl := template.Must(template.New("log").Parse(`<pre id="log">{{.}}</pre>`))
	if err := tmpl.Execute(&out, logText([]byte("</pre><script>alert(1)</script>&amp;\x00"))); err != nil {
		t.Fatal(err)
	}
	if want := `<pre id="log">&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;␀</pre>`; out.String() != want {
		t.Errorf("the page holds %s, want %s", out.String(), want)
	}
}

// A live log keeps back the end of what it has read when more may complete
// it: a UTF-8 sequence cut short, or a CR that may start a CR LF.
func TestALiveLogKeepsBackWhatTheNextReadCompletes(t *testing.T) {
	for in, want := range map[string]int{"abc": 0, "a\xe4": 1, "a\xe4\xb8": 2, "a\xe4\xb8\xad": 0, "a\r": 1, "a\r\n": 0, "a\xff": 0, "": 0} {
		if got := heldBack([]byte(in)); got != want {
			t.Errorf("heldBack(%q) = %d, want %d", in, got, want)
		}
	}
}
