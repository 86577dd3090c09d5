package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// tokenSignin posts the sign-in form with token from addr.
func tokenSignin(c *Console, token, addr string) *httptest.ResponseRecorder {
	return postSignin(c, url.Values{"token": {token}}, addr)
}

// The token sign-in throttles as the API does: from an address that
// failed too often a token that fails is refused with 429 without saying
// why, and a valid token still signs in, so one broken client cannot
// lock out everyone at its address (every local user's 127.0.0.1).
func TestAValidTokenSignsInFromAThrottledAddress(t *testing.T) {
	st := sqlitetest.Open(t)
	secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "web", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	unknown, _, err := apitoken.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Tokens: st})
	const addr = "203.0.113.9"
	for range signinBurst {
		if w := tokenSignin(c, unknown, addr); w.Code != http.StatusUnauthorized {
			t.Fatalf("an unknown token: %d, want 401", w.Code)
		}
	}
	for _, bad := range []string{unknown, "qlt_short"} {
		if w := tokenSignin(c, bad, addr); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != retryThrottled {
			t.Fatalf("a failing token %q from the throttled address: %d Retry-After %q, want 429 %s", bad, w.Code, w.Header().Get("Retry-After"), retryThrottled)
		}
	}
	if w := tokenSignin(c, secret, addr); w.Code != http.StatusSeeOther {
		t.Fatalf("a valid token from the throttled address: %d, want 303:\n%s", w.Code, w.Body)
	}
	if w := wrongSignin(c, "bob", addr); w.Code != http.StatusTooManyRequests {
		t.Fatalf("a password from the throttled address: %d, want 429 before the check", w.Code)
	}
	if _, throttled, _ := c.AuthStats(); throttled != 3 {
		t.Fatalf("throttled sign-ins: %d, want the two failing tokens and the password", throttled)
	}
}
