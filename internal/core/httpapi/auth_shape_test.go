package httpapi

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A token copied one character short starts with qlt_: the API's refusal
// says its length is wrong and what a token looks like, not that tokens
// start with qlt_, which sends its user looking for the wrong fault.
func TestATokenOfTheWrongLengthIsRefusedSayingItsLength(t *testing.T) {
	t.Parallel()
	h, _ := walkHandler(t, Config{Limits: Limits{FailedAuthBurst: 1000}})
	good, _, err := apitoken.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	p := send(t, h, "GET", "/api/v1/runs", "localhost", good[:len(good)-1], "")
	if p.status != 401 || !strings.Contains(p.message, "has 42 characters after qlt_") || !strings.Contains(p.message, "qlt_ and 43 more") ||
		strings.Contains(p.message, "tokens start with") {
		t.Fatalf("a 46-character token: %d %q; want 401 saying its length and what a token is", p.status, p.message)
	}
}
