package console

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// The console's pages do not check a token's projects, so a token bound
// to projects is refused at sign-in (403, saying why in the page's
// language, no session started) rather than shown every project; a token
// of every project still signs in.
func TestAProjectBoundTokenCannotSignInToTheConsole(t *testing.T) {
	st := sqlitetest.Open(t)
	bound, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "alpha-ci", apitoken.Read, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	every, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "ops", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Tokens: st})
	w := tokenSignin(c, bound, "203.0.113.7")
	if body := html.UnescapeString(w.Body.String()); w.Code != http.StatusForbidden || !strings.Contains(body, "This token is bound to projects, and a token's console session is not: it cannot sign in here") || strings.Contains(w.Header().Get("Set-Cookie"), sessionCookie+"=") {
		t.Fatalf("a token bound to alpha signing in: %d %q; want 403 saying it is bound, no session:\n%s", w.Code, w.Header().Get("Set-Cookie"), w.Body)
	}
	if tr("zh", "err.tokenbound") == tr("en", "err.tokenbound") {
		t.Error("the refusal has no Chinese text")
	}
	if w := tokenSignin(c, every, "203.0.113.7"); w.Code != http.StatusSeeOther {
		t.Fatalf("a token of every project signing in: %d, want 303", w.Code)
	}
}
