package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

var signinError = regexp.MustCompile(`<p class="error" role="alert">([^<]*)</p>`)

// signInUser posts a user's name and password with a fresh sign-in form
// and returns the answer's status, Location and error message.
func (s *consoleSite) signInUser(t testing.TB, c *http.Client, name, password string) (int, string, string) {
	t.Helper()
	csrf, page := s.signinForm(t, c)
	if !strings.Contains(page, `id="user"`) {
		t.Fatalf("the sign-in page offers no user sign-in:\n%s", page)
	}
	resp, body := httpcall.Form(t, c, http.MethodPost, s.base+"/signin", url.Values{"csrf": {csrf}, "user": {name}, "password": {password}})
	msg := ""
	if e := signinError.FindStringSubmatch(body); e != nil {
		msg = e[1]
	}
	return resp.StatusCode, resp.Header.Get("Location"), msg
}

// A wrong password is refused with the same status and message as an
// unknown user name, and a disabled account likewise; the right password
// signs in, and the user's actions are audited as the user's.
func TestConsoleWrongPasswordIsRefusedLikeAnUnknownUser(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	wrongSt, _, wrongMsg := site.signInUser(t, consoleClient(t), site.owner, "not the password")
	unknownSt, _, unknownMsg := site.signInUser(t, consoleClient(t), "nobody", ownerPassword)
	if wrongSt != http.StatusUnauthorized || wrongSt != unknownSt || wrongMsg == "" || wrongMsg != unknownMsg {
		t.Fatalf("wrong password %d %q, unknown user %d %q: want the same 401 and message", wrongSt, wrongMsg, unknownSt, unknownMsg)
	}
	if _, err := account.Create(t.Context(), site.srv.store, "tester", ids.New(), "dora", account.Owner, ownerPassword); err != nil {
		t.Fatal(err)
	}
	if _, err := site.srv.store.UserDisable(t.Context(), "dora", "tester"); err != nil {
		t.Fatal(err)
	}
	if st, _, msg := site.signInUser(t, consoleClient(t), "dora", ownerPassword); st != wrongSt || msg != wrongMsg {
		t.Fatalf("a disabled user with its password: %d %q, want %d %q", st, msg, wrongSt, wrongMsg)
	}

	c := consoleClient(t)
	if st, loc, msg := site.signInUser(t, c, site.owner, ownerPassword); st != http.StatusSeeOther || loc != "/" {
		t.Fatalf("the right password: %d to %q (%q), want 303 to /", st, loc, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	csrf := csrfField.FindStringSubmatch(page)
	if csrf == nil || !strings.Contains(page, "olivia") || !strings.Contains(page, `id="nav-tokens"`) {
		t.Fatalf("an owner's overview names no user or offers no tokens page:\n%s", page)
	}
	if !strings.Contains(page, `id="backlog"`) || strings.Contains(page, `href="/workers"`) || strings.Contains(page, `id="replicas"`) {
		t.Fatalf("the standalone overview shows no backlog, or offers a workers page or replicas:\n%s", page)
	}
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", url.Values{"csrf": {csrf[1]}, "force": {"1"}})
	runID := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	if resp.StatusCode != http.StatusSeeOther || runID == "" {
		t.Fatalf("run now as a user: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	d, err := site.srv.store.RunGet(t.Context(), runID)
	if err != nil || len(d.Events) == 0 || !strings.Contains(d.Events[0].Payload, `"console:user:olivia@127.0.0.1"`) {
		t.Fatalf("the run's first event does not name the user as its actor: %+v %v", d.Events, err)
	}
	if list, err := site.srv.store.UserList(t.Context()); err != nil || list[1].Name != "olivia" || list[1].LastSigninAtMs == nil {
		t.Fatalf("the sign-in was not recorded: %+v %v", list, err)
	}
}

// Disabling or deleting a user, or giving it a new password, ends its
// sessions: their next request is sent to sign in; after a new password the
// user signs in again with it.
func TestConsoleDisablingDeletingOrANewPasswordEndsAUsersSessions(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	const newPassword = "a new password, told to no one"
	for _, end := range []struct {
		what   string
		change func(name string) error
	}{
		{"disabled", func(n string) error { _, err := site.srv.store.UserDisable(t.Context(), n, "tester"); return err }},
		{"deleted", func(n string) error { return site.srv.store.UserDelete(t.Context(), n, "tester") }},
		{"re-passworded", func(n string) error {
			return account.SetPassword(t.Context(), site.srv.store, "tester", n, newPassword)
		}},
	} {
		name := "user-" + end.what
		if _, err := account.Create(t.Context(), site.srv.store, "tester", ids.New(), name, account.Viewer, ownerPassword); err != nil {
			t.Fatal(err)
		}
		c := consoleClient(t)
		if st, _, msg := site.signInUser(t, c, name, ownerPassword); st != http.StatusSeeOther {
			t.Fatalf("sign in as %s: %d %q", name, st, msg)
		}
		if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("a viewer's runs page: %d", resp.StatusCode)
		}
		if err := end.change(name); err != nil {
			t.Fatal(err)
		}
		if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin?next=%2Fruns" {
			t.Fatalf("a %s user's session: %d to %q, want 303 to sign in and back", end.what, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	c := consoleClient(t)
	if st, _, msg := site.signInUser(t, c, "user-re-passworded", newPassword); st != http.StatusSeeOther {
		t.Fatalf("sign in with the new password: %d %q", st, msg)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session signed in with the new password: %d", resp.StatusCode)
	}
}

// After ten failed sign-ins from one address the right password and a
// failing token are refused with 429 for a while, saying when to retry as
// the API does (Retry-After: 60), while a good token is served as the API
// serves it; the refusals count with the API's.
func TestConsoleSigninIsThrottledAfterRepeatedFailures(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	bad := apitoken.Prefix + strings.Repeat("A", 43)
	for i := range 10 {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/signin", nil)
		m := csrfField.FindStringSubmatch(page)
		resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {m[1]}, "token": {bad}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	st, _, msg := site.signInUser(t, c, site.owner, ownerPassword)
	if st != http.StatusTooManyRequests || !strings.Contains(msg, "wait a minute") {
		t.Fatalf("after ten failures the right password: %d %q, want 429", st, msg)
	}
	csrf, _ := site.signinForm(t, c)
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {bad}})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("after ten failures a failing token: %d with Retry-After %q, want 429 with Retry-After 60, as the API's", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	csrf, _ = site.signinForm(t, c)
	resp, _ = httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {site.tokens[apitoken.Read]}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after ten failures a good token: %d, want 303: a valid token is served from a throttled address, as the API serves it", resp.StatusCode)
	}
	if got := site.srv.APIStats(); got.AuthThrottled != 2 || got.AuthFailures != 10 {
		t.Fatalf("counters %+v, want 10 failures and 2 throttled", got)
	}
}

// The tokens page is an admin's: an operate token is refused and offered
// no link; an admin creates a token whose secret is shown in that answer
// only, never on the page again, and revokes it.
func TestConsoleTokensPageNeedsAdminAndShowsASecretOnlyOnce(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	op := consoleClient(t)
	site.signIn(t, op, site.tokens[apitoken.Operate])
	if resp, _ := httpcall.Form(t, op, http.MethodGet, site.base+"/tokens", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the tokens page with an operate token: %d, want 403", resp.StatusCode)
	}
	if _, page := httpcall.Form(t, op, http.MethodGet, site.base+"/", nil); strings.Contains(page, `href="/tokens"`) {
		t.Fatal("an operate session is offered the tokens page")
	}

	admin := consoleClient(t)
	csrf := site.signIn(t, admin, site.tokens[apitoken.Admin])
	resp, page := httpcall.Form(t, admin, http.MethodPost, site.base+"/tokens", url.Values{"csrf": {csrf}, "name": {"deploy"}, "scope": {"read"}, "expires": {"30d"}})
	secret := regexp.MustCompile(`<code id="new-token">(qlt_[A-Za-z0-9_-]+)</code>`).FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || secret == nil || !apitoken.LooksLikeToken(secret[1]) {
		t.Fatalf("create a token: %d, no secret shown:\n%s", resp.StatusCode, page)
	}
	tok, err := site.srv.store.TokenByDigest(t.Context(), apitoken.Digest(secret[1]))
	if err != nil || tok.Name != "deploy" || tok.Scope != apitoken.Read || tok.ExpiresAtMs == nil {
		t.Fatalf("the shown secret is not the created token: %+v %v", tok, err)
	}
	_, page = httpcall.Form(t, admin, http.MethodGet, site.base+"/tokens", nil)
	if strings.Contains(page, secret[1]) || !strings.Contains(page, "deploy") || strings.Contains(page, "qlt_") {
		t.Fatalf("the tokens page after creation shows a secret, or not the token:\n%s", page)
	}
	if resp, _ := httpcall.Form(t, admin, http.MethodPost, site.base+"/tokens/deploy/revoke", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if tok, err := site.srv.store.TokenByDigest(t.Context(), apitoken.Digest(secret[1])); err != nil || tok.RevokedAtMs == nil {
		t.Fatalf("after revoke: %+v %v", tok, err)
	}
}
