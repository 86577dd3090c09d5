package shellquote

import (
	"os/exec"
	"strings"
	"testing"
)

// A value quoted is read back by a POSIX shell as the value, one word,
// whatever it holds; one the shell reads unchanged is left as it is.
func TestAQuotedValueIsReadBackByTheShellAsOneWord(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no sh on PATH (%v): the quoting is checked against a POSIX shell", err)
	}
	for _, v := range []string{"/var/lib/qinglong", "/srv/my data", "/srv/it's", "/srv/$HOME", "/srv/a;b", "/srv/`x`", "/srv/数据", "", "/srv/a\\b", "/srv/*"} {
		q := Quote(v)
		if plain := !strings.ContainsAny(v, " '$;`\\*") && v != ""; plain != (q == v) {
			t.Errorf("Quote(%q) = %q; a value the shell reads unchanged is left as it is, any other quoted", v, q)
		}
		out, err := exec.Command(sh, "-c", `printf '%s|' `+q).Output()
		if err != nil {
			t.Fatalf("sh -c with %s: %v", q, err)
		}
		if string(out) != v+"|" {
			t.Errorf("Quote(%q) = %s, read back by the shell as %q", v, q, out)
		}
	}
}
