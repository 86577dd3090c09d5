package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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

// Where the cookies are Secure the sign-in form's cookie is
// __Host-ql_signin (Secure, Path=/, no Domain), which no other host of the
// domain nor a plain-HTTP page can set; a value under the plain name, which
// a neighbouring subdomain could plant, is not read: the form is refused
// as one without its cookie.
func TestOverTLSTheSigninFormsCookieCarriesTheHostPrefix(t *testing.T) {
	st := sqlitetest.Open(t)
	secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "web", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Tokens: st, Sessions: st, Secure: true})
	w := httptest.NewRecorder()
	c.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/signin", nil))
	var got *http.Cookie
	for _, ck := range w.Result().Cookies() {
		if ck.Name == hostPrefix+signinCookie {
			got = ck
		}
	}
	if got == nil || got.Path != "/" || got.Domain != "" || !got.Secure || !got.HttpOnly || got.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the sign-in form's cookie over TLS: %+v, want __Host-ql_signin, Secure, HttpOnly, SameSite=Strict, Path=/, no Domain", got)
	}
	post := func(name string) int {
		r := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(url.Values{"csrf": {got.Value}, "token": {secret}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: name, Value: got.Value})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		return w.Code
	}
	if code := post(signinCookie); code != http.StatusForbidden {
		t.Fatalf("over TLS a sign-in with the value under the plain name: %d, want 403", code)
	}
	if code := post(hostPrefix + signinCookie); code != http.StatusSeeOther {
		t.Fatalf("over TLS a sign-in with its __Host- cookie: %d, want signed in", code)
	}
}

// A sign-in form is taken by another console on the same database (a
// replica behind a balancer, or the server started again): its value is
// checked against nothing a process keeps.
func TestASigninFormFromOneConsoleIsTakenByAnother(t *testing.T) {
	st := sqlitetest.Open(t)
	secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "web", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	first, second := New(Config{Tokens: st, Sessions: st}), New(Config{Tokens: st, Sessions: st})
	w := httptest.NewRecorder()
	first.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/signin", nil))
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != signinCookie {
		t.Fatalf("the sign-in page's cookies: %+v, want its form's", cookies)
	}
	r := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(url.Values{"csrf": {cookies[0].Value}, "token": {secret}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.AddCookie(cookies[0])
	w = httptest.NewRecorder()
	second.ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("the form of one console posted to another: %d, want signed in\n%s", w.Code, w.Body)
	}
}
