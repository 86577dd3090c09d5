package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestControlCharactersAreEscapedForATerminal(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text, 中文 and émoji 🙂\n\tindented\n", "plain text, 中文 and émoji 🙂\n\tindented\n"},
		{"\x1b[2J\x1b]0;owned\x07", `\x1b[2J\x1b]0;owned\x07`},
		{"fake\rreal\bX\x00\x7f", `fake\x0dreal\x08X\x00\x7f`},
		{"csi \u009b31m and nel \u0085", `csi \u009b31m and nel \u0085`},
		{"lone \x9b and \xff bytes", `lone \x9b and \xff bytes`},
		{"\u00a0 and \u00ff stay", "\u00a0 and \u00ff stay"},
	}
	for _, tt := range tests {
		if got := string(appendEscaped(nil, []byte(tt.in), false)); got != tt.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Output arrives in chunks that may split a character (or an escape
// sequence) anywhere; the result must not depend on where.
func TestEscaperIsIndependentOfWriteBoundaries(t *testing.T) {
	t.Parallel()
	in := []byte("a\x1b[31m中\u009b🙂\xe4\xb8")
	want := string(appendEscaped(nil, in[:len(in)-2], false)) + `\xe4\xb8`
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		e := &escaper{w: &out}
		for i := 0; i < len(in); i += size {
			chunk := in[i:min(i+size, len(in))]
			if n, err := e.Write(chunk); n != len(chunk) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("chunks of %d: %q, want %q", size, out.String(), want)
		}
	}
}

// directionControls are the characters that make a terminal show the text
// around them in another order: marks, embeddings, overrides, isolates.
var directionControls = []rune{'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'}

// Every table and message shows a text-direction character as its \u
// escape, so stored text cannot make a row or a message read as something
// else; a table measures the escape, so its columns stay aligned. A run's
// log keeps them (its output is the command's), and -o json carries the
// text as stored.
func TestTablesAndMessagesShowEveryTextDirectionControlAsAnEscape(t *testing.T) {
	t.Parallel()
	for _, r := range directionControls {
		text := "note" + string(r) + "evil"
		escaped := fmt.Sprintf(`note\u%04xevil`, r)
		if got := userText(text); got != escaped {
			t.Errorf("userText(%q) = %q, want %q", text, got, escaped)
		}
		if got := oneLine(text + "\n"); got != escaped+`\n` {
			t.Errorf("oneLine(%q) = %q, want %q", text+"\n", got, escaped+`\n`)
		}
		var msg bytes.Buffer
		fmt.Fprintf(textWriter{&msg}, "trigger x: %s\n", text)
		if msg.String() != "trigger x: "+escaped+"\n" {
			t.Errorf("a message quoting %q: %q, want it escaped", text, msg.String())
		}
		var out, errOut bytes.Buffer
		cmd := &cobra.Command{}
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		l := listing[string]{json: map[string]string{"note": text}, header: []string{"ID", "NOTE", "NEXT"}, items: []string{text, "plain"},
			row: func(s string) []string { return []string{"1", s, "end"} }}
		if err := printListing(cmd, "table", l); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		if !strings.Contains(lines[1], escaped) || strings.ContainsRune(out.String(), r) ||
			strings.Index(lines[1], "end") != strings.Index(lines[0], "NEXT") || strings.Index(lines[2], "end") != strings.Index(lines[0], "NEXT") {
			t.Errorf("a table row holding %q:\n%s\nwant it escaped and its columns aligned", text, out.String())
		}
		out.Reset()
		if err := printListing(cmd, "json", l); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), text) {
			t.Errorf("-o json of %q: %s; want the text as stored", text, out.String())
		}
		var logOut bytes.Buffer
		e := &escaper{w: &logOut}
		if _, err := e.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if logOut.String() != text {
			t.Errorf("a log line %q printed %q; want the command's output as written", text, logOut.String())
		}
	}
}

// The error line quotes what the user gave (here a path) with its
// text-direction characters as escapes.
func TestAnErrorLineShowsTheTextDirectionControlsItQuotesAsEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, r := range directionControls {
		code, _, stderr := ql(t, "apply", "-f", filepath.Join(dir, "defs"+string(r)+"txt.yaml"))
		if code != ExitUsage || !strings.Contains(stderr, fmt.Sprintf(`defs\u%04xtxt.yaml`, r)) || strings.ContainsRune(stderr, r) {
			t.Errorf("apply of a missing file named with %U: exit %d, %q; want exit 2 (the path given is wrong) and the name escaped", r, code, stderr)
		}
	}
}
