package apitoken

import (
	"strings"
	"testing"
)

// A string that is no token is told what keeps it from being one: a token
// copied short (it starts with qlt_) is told its length, not that tokens
// start with qlt_; the message never repeats the string.
func TestAMalformedTokenIsToldWhatIsWrongWithIt(t *testing.T) {
	t.Parallel()
	good, _, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if p := ShapeProblem(good); p != "" || !LooksLikeToken(good) {
		t.Fatalf("a new token: %q; want it taken as a token", p)
	}
	for _, c := range []struct {
		what, s, want string
	}{
		{"cut short by one", good[:len(good)-1], "it has 42 characters after qlt_, and a token is qlt_ and 43 more letters, digits, '-' or '_': copy all of it"},
		{"one too many", good + "A", "it has 44 characters after qlt_"},
		{"without the prefix", "xyz_" + good[4:], "it does not start with qlt_"},
		{"a character no token has", good[:len(good)-1] + "*", "it holds a character no token has"},
	} {
		p := ShapeProblem(c.s)
		if !strings.Contains(p, c.want) || strings.Contains(p, c.s[4:]) || LooksLikeToken(c.s) {
			t.Errorf("%s: %q; want it to say %q and not repeat the token", c.what, p, c.want)
		}
	}
}
