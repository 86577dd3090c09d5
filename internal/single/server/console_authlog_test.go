package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// authLine matches one authentication line of the text log, with its
// level, code and the attributes every one has.
func authLine(level, code, surface, name, reason string) *regexp.Regexp {
	return regexp.MustCompile(`level=` + level + ` msg="[^"]+" code=` + regexp.QuoteMeta(code) + ` surface=` + surface + ` addr=127\.0\.0\.1 name=` + regexp.QuoteMeta(name) + `(?: reason=` + reason + `)?`)
}

// Every console sign-in and sign-out is logged at INFO with the user's
// or token's name; a failed sign-in at INFO with why, naming the user
// only when the account exists; a throttled one at WARN; the first
// owner's setup and a wrong setup code too. No password, token or cookie
// is ever in the log.
func TestConsoleSigninsSignoutsAndTheirFailuresAreLogged(t *testing.T) {
	t.Parallel()
	site, logs := startLoggedConsoleSite(t)
	c := consoleClient(t)
	if st, loc, msg := site.signInUser(t, c, site.owner, ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("sign-in: %d to %q (%q)", st, loc, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	csrf := csrfField.FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no sign-out form:\n%s", page)
	}
	base, err := url.Parse(site.base)
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	for _, ck := range c.Jar.Cookies(base) {
		cookies = append(cookies, ck.Value)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signout", url.Values{"csrf": {csrf[1]}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", resp.StatusCode)
	}
	site.signIn(t, consoleClient(t), site.tokens[apitoken.Read])
	const typo = "olivia-but-mistyped"
	site.signInUser(t, consoleClient(t), typo, ownerPassword)
	revoked := site.tokens[apitoken.Operate]
	if err := site.srv.store.TokenRevoke(t.Context(), "console-operate", "tester"); err != nil {
		t.Fatal(err)
	}
	csrfSignin, _ := site.signinForm(t, c)
	httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrfSignin}, "token": {revoked}})
	for range 10 {
		site.signInUser(t, c, site.owner, "not the password")
	}
	l := logs.String()
	for _, want := range []*regexp.Regexp{
		authLine("INFO", authlog.CodeSignedIn, "console", site.owner, "password"),
		authLine("INFO", authlog.CodeSignedOut, "console", site.owner, ""),
		authLine("INFO", authlog.CodeSignedIn, "console", "console-read", "token"),
		authLine("INFO", authlog.CodeFailed, "console", `""`, "user_unknown"),
		authLine("WARN", authlog.CodeRevokedUsed, "console", "console-operate", "token_revoked"),
		authLine("INFO", authlog.CodeFailed, "console", site.owner, "password_wrong"),
		authLine("WARN", authlog.CodeThrottled, "console", `""`, "address_throttled"),
	} {
		if !want.MatchString(l) {
			t.Errorf("no line matches %s in:\n%s", want, l)
		}
	}
	if n := strings.Count(l, "reason=password_wrong"); n != 1 {
		t.Errorf("%d lines for the wrong passwords of one address within a minute, want 1", n)
	}
	for _, secret := range append(cookies, ownerPassword, "not the password", site.tokens[apitoken.Read], revoked, typo) {
		if strings.Contains(l, secret) {
			t.Fatalf("the log carries %q:\n%s", secret, l)
		}
	}

	setup := startSetupSite(t)
	sc := consoleClient(t)
	form := setup.setupForm(t, sc)
	setup.postSetup(t, sc, form, "lead", "AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA")
	if resp, body := setup.postSetup(t, sc, form, "lead", setup.code(t)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("setup with the right code: %d\n%s", resp.StatusCode, body)
	}
	for _, want := range []*regexp.Regexp{
		authLine("INFO", authlog.CodeFailed, "setup", `""`, "setup_code_wrong"),
		authLine("INFO", authlog.CodeSignedIn, "setup", "lead", "setup_code"),
	} {
		if !want.MatchString(setup.logs.String()) {
			t.Errorf("no line matches %s in:\n%s", want, setup.logs.String())
		}
	}
}
