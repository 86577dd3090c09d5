package cli

import (
	"bytes"
	"testing"
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
		if got := string(appendEscaped(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Output arrives in chunks that may split a character (or an escape
// sequence) anywhere; the result must not depend on where.
func TestEscaperIsIndependentOfWriteBoundaries(t *testing.T) {
	t.Parallel()
	in := []byte("a\x1b[31m中\u009b🙂\xe4\xb8")
	want := string(appendEscaped(nil, in[:len(in)-2])) + `\xe4\xb8`
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
