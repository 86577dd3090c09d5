package server

import (
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

const newPassword = "a whole new password"

// startLoggedConsoleSite is startConsoleSite with its log.
func startLoggedConsoleSite(t *testing.T) (*consoleSite, *lockedBuffer) {
	t.Helper()
	logs := &lockedBuffer{}
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true",
		func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	return site, logs
}

// signedInUser signs a new client in as the site's owner with password
// and returns it with the account page's CSRF value.
func (s *consoleSite) signedInUser(t *testing.T, password string) (*http.Client, string) {
	t.Helper()
	c := consoleClient(t)
	if st, loc, msg := s.signInUser(t, c, s.owner, password); st != http.StatusSeeOther {
		t.Fatalf("sign-in: %d to %q (%q)", st, loc, msg)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, s.base+"/account", nil)
	m := csrfField.FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil || !strings.Contains(page, `id="password-form"`) {
		t.Fatalf("account page: %d\n%s", resp.StatusCode, page)
	}
	return c, m[1]
}

func (s *consoleSite) changePassword(t *testing.T, c *http.Client, csrf, current, password, again string) (*http.Response, string) {
	t.Helper()
	return httpcall.Form(t, c, http.MethodPost, s.base+"/account/password", url.Values{"csrf": {csrf}, "current": {current}, "password": {password}, "password2": {again}})
}

func TestAUserChangesTheirPasswordInTheBrowser(t *testing.T) {
	t.Parallel()
	site, logs := startLoggedConsoleSite(t)
	other, _ := site.signedInUser(t, ownerPassword)
	c, csrf := site.signedInUser(t, ownerPassword)
	if resp, body := site.changePassword(t, c, csrf, ownerPassword, newPassword, newPassword+"!"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "The two new passwords differ") {
		t.Fatalf("two different new passwords: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := site.changePassword(t, c, csrf, ownerPassword, "short", "short"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "use 10 to 256") {
		t.Fatalf("a short new password: %d\n%s", resp.StatusCode, body)
	}
	resp, body := site.changePassword(t, c, csrf, ownerPassword, newPassword, newPassword)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account?changed" {
		t.Fatalf("password change: %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account?changed&lang=zh", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "密码已修改") {
		t.Fatalf("this browser after the change: %d, want it signed in and told (in Chinese)\n%s", resp.StatusCode, page)
	}
	if resp, _ := httpcall.Form(t, other, http.MethodGet, site.base+"/", nil); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/signin") {
		t.Fatalf("the user's other session after the change: %d to %q, want it signed out", resp.StatusCode, resp.Header.Get("Location"))
	}
	if st, _, _ := site.signInUser(t, consoleClient(t), site.owner, ownerPassword); st != http.StatusUnauthorized {
		t.Fatalf("the old password signs in: %d", st)
	}
	site.signedInUser(t, newPassword)
	l := logs.String()
	if !strings.Contains(l, "code="+console.CodePasswordChanged+" user="+site.owner) || strings.Contains(l, newPassword) || strings.Contains(l, ownerPassword) || strings.Contains(l, "argon2id") {
		t.Fatalf("the change is not logged with its code, or a password is:\n%s", l)
	}
}

func TestAWrongCurrentPasswordIsThrottled(t *testing.T) {
	t.Parallel()
	site, _ := startLoggedConsoleSite(t)
	c, csrf := site.signedInUser(t, ownerPassword)
	for i := range 5 {
		resp, body := site.changePassword(t, c, csrf, "not my password", newPassword, newPassword)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not your current password") {
			t.Fatalf("wrong current password %d: %d, want 401 saying so\n%s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := site.changePassword(t, c, csrf, ownerPassword, newPassword, newPassword)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after five wrong current passwords: %d, want 429\n%s", resp.StatusCode, body)
	}
	if st, _, _ := site.signInUser(t, consoleClient(t), site.owner, newPassword); st == http.StatusSeeOther {
		t.Fatal("a throttled change changed the password")
	}
}

// A session of an API token has no password to change: its account page
// says so and the form's address refuses it.
func TestATokenSessionHasNoPasswordToChange(t *testing.T) {
	t.Parallel()
	site, _ := startLoggedConsoleSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens["read"])
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account", nil)
	if !strings.Contains(page, `id="account-token"`) || strings.Contains(page, `id="password-form"`) {
		t.Fatalf("a token's account page:\n%s", page)
	}
	if resp, body := site.changePassword(t, c, csrf, ownerPassword, newPassword, newPassword); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "API token") {
		t.Fatalf("a token session's password change: %d\n%s", resp.StatusCode, body)
	}
}

// A wrong current password on the password form is logged at INFO with
// the session's user, and the throttled tries after it at WARN; neither
// line carries a password.
func TestAWrongCurrentPasswordAndItsThrottleAreLogged(t *testing.T) {
	t.Parallel()
	site, logs := startLoggedConsoleSite(t)
	c, csrf := site.signedInUser(t, ownerPassword)
	const guess = "a guessed password"
	for range 6 {
		site.changePassword(t, c, csrf, guess, newPassword, newPassword)
	}
	l := logs.String()
	for _, want := range []*regexp.Regexp{
		authLine("INFO", authlog.CodeFailed, "console", site.owner, authlog.ReasonCurrentPasswordWrong),
		authLine("WARN", authlog.CodeThrottled, "console", site.owner, authlog.ReasonThrottled),
	} {
		if !want.MatchString(l) {
			t.Errorf("no line matches %s in:\n%s", want, l)
		}
	}
	if !strings.Contains(l, "reason="+authlog.ReasonCurrentPasswordWrong) {
		t.Errorf("no line says %s:\n%s", authlog.ReasonCurrentPasswordWrong, l)
	}
	for _, secret := range []string{guess, newPassword, ownerPassword} {
		if strings.Contains(l, secret) {
			t.Fatalf("the log carries %q:\n%s", secret, l)
		}
	}
}
