package console

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// Over TLS the session cookie is __Host-ql_session: Secure, Path=/, no
// Domain, as a browser requires of the prefix, so no other host of the
// domain can set or shadow it; the session is read under that name alone.
// Without TLS it keeps its plain name, which loopback HTTP sends back.
func TestOverTLSTheSessionCookieCarriesTheHostPrefix(t *testing.T) {
	st := sqlitetest.Open(t)
	secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "web", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		secure bool
		name   string
	}{{true, "__Host-ql_session"}, {false, "ql_session"}} {
		c := New(Config{Tokens: st, Sessions: st, Secure: tc.secure})
		w := tokenSignin(c, secret, "192.0.2.1")
		var got *http.Cookie
		for _, ck := range w.Result().Cookies() {
			if ck.Name == tc.name {
				got = ck
			}
			if ck.Name != tc.name && (ck.Name == hostPrefix+sessionCookie || ck.Name == sessionCookie) {
				t.Errorf("secure %v: a session cookie named %s, want %s alone", tc.secure, ck.Name, tc.name)
			}
		}
		if got == nil || got.Path != "/" || got.Domain != "" || got.Secure != tc.secure || !got.HttpOnly {
			t.Fatalf("secure %v: the session cookie %+v, want %s with Path=/, no Domain, Secure %v, HttpOnly", tc.secure, got, tc.name, tc.secure)
		}
		account := func(name string) int {
			r := httptest.NewRequest(http.MethodGet, "/account", nil)
			r.AddCookie(&http.Cookie{Name: name, Value: got.Value})
			w := httptest.NewRecorder()
			c.ServeHTTP(w, r)
			return w.Code
		}
		if code := account(tc.name); code != http.StatusOK {
			t.Fatalf("secure %v: the session under %s: %d, want the page", tc.secure, tc.name, code)
		}
		if tc.secure {
			if code := account(sessionCookie); code != http.StatusSeeOther {
				t.Fatalf("over TLS the session under the plain name: %d, want sent to sign in", code)
			}
		}
	}
}

// A console reached through an https address (a TLS-terminating proxy in
// front of a plain-HTTP listener) is one whose cookies must be Secure.
func TestAnHTTPSConsoleAddressMakesTheCookiesSecure(t *testing.T) {
	for u, want := range map[string]bool{"https://ql.example.com/": true, "HTTPS://ql.example.com": true, "http://ql.example.com/": false, "": false} {
		if got := PublicTLS(u); got != want {
			t.Errorf("PublicTLS(%q) = %v, want %v", u, got, want)
		}
	}
}
