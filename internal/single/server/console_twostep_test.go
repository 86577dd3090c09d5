package server

import (
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// twoStepSite is a console site whose clock moves only when a test moves
// it, with the owner's two-step sign-in on.
type twoStepSite struct {
	*consoleSite
	logs   *lockedBuffer
	now    *atomic.Int64
	secret string
	codes  []string
}

var (
	twoStepURI    = regexp.MustCompile(`<code id="two-step-uri">([^<]+)</code>`)
	recoveryCodes = regexp.MustCompile(`<li><code>([2-9a-z]{5}-[2-9a-z]{5})</code></li>`)
	ticketField   = regexp.MustCompile(`name="ticket" value="([^"]+)"`)
	twoStepError  = regexp.MustCompile(`<p class="error" role="alert" id="two-step-error">([^<]*)</p>`)
)

// startTwoStepSite starts the site, its clock at the start of a time
// step a little after the wall clock's now (never behind what the
// database recorded), and turns the owner's two-step on in the browser.
func startTwoStepSite(t *testing.T) *twoStepSite {
	t.Helper()
	return startTwoStepSiteConfigured(t, func(*Config) {})
}

// startTwoStepSiteConfigured is startTwoStepSite with the server's
// settings changed by configure.
func startTwoStepSiteConfigured(t *testing.T, configure func(*Config)) *twoStepSite {
	t.Helper()
	now := &atomic.Int64{}
	start := time.Now().Add(time.Minute).Truncate(account.TwoStepPeriod * time.Second)
	now.Store(start.UnixMilli())
	logs := &lockedBuffer{}
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true",
		func(c *Config) {
			c.Logger, c.NowMs = slog.New(slog.NewTextHandler(logs, nil)), now.Load
			configure(c)
		})
	s := &twoStepSite{consoleSite: site, logs: logs, now: now}
	c, csrf := site.signedInUser(t, ownerPassword)
	if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/begin", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("begin: %d\n%s", resp.StatusCode, body)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account", nil)
	m := twoStepURI.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the account page shows no otpauth:// URI:\n%s", page)
	}
	key, err := otp.NewKeyFromURL(html.UnescapeString(m[1]))
	if err != nil || key.Issuer() != account.TwoStepIssuer || key.AccountName() != site.owner {
		t.Fatalf("the URI %q: %v", m[1], err)
	}
	s.secret = key.Secret()
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/account/two-step/qr.png", nil); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("the QR code: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/confirm", url.Values{"csrf": {csrf}, "code": {s.code(t, 0)}, "current": {"not the password"}}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("confirm with a wrong password: %d, want refused", resp.StatusCode)
	}
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/confirm", url.Values{"csrf": {csrf}, "code": {s.code(t, 0)}, "current": {ownerPassword}})
	for _, m := range recoveryCodes.FindAllStringSubmatch(page, -1) {
		s.codes = append(s.codes, m[1])
	}
	if resp.StatusCode != http.StatusOK || len(s.codes) != account.RecoveryCodes {
		t.Fatalf("confirm: %d with %d recovery codes\n%s", resp.StatusCode, len(s.codes), page)
	}
	return s
}

// code is the app's code of the step steps after the clock's.
func (s *twoStepSite) code(t *testing.T, steps int) string {
	t.Helper()
	at := time.UnixMilli(s.now.Load()).Add(time.Duration(steps) * account.TwoStepPeriod * time.Second)
	c, err := totp.GenerateCodeCustom(s.secret, at, totp.ValidateOpts{Period: account.TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tick moves the clock on by steps time steps.
func (s *twoStepSite) tick(steps int) {
	s.now.Add(int64(steps) * account.TwoStepPeriod * 1000)
}

// passwordStep signs c in with the owner's password and returns the
// second step's CSRF value and ticket.
func (s *twoStepSite) passwordStep(t *testing.T, c *http.Client) (csrf, ticket string) {
	t.Helper()
	csrf, _ = s.signinForm(t, c)
	resp, body := httpcall.Form(t, c, http.MethodPost, s.base+"/signin", url.Values{"csrf": {csrf}, "user": {s.owner}, "password": {ownerPassword}})
	m := ticketField.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil || !strings.Contains(body, `id="signin-two-step-form"`) {
		t.Fatalf("the right password: %d, want the second step\n%s", resp.StatusCode, body)
	}
	return csrf, m[1]
}

// secondStep sends code to the second step; it returns the status and
// the error shown.
func (s *twoStepSite) secondStep(t *testing.T, c *http.Client, csrf, ticket, code string) (int, string) {
	t.Helper()
	resp, body := httpcall.Form(t, c, http.MethodPost, s.base+"/signin/two-step", url.Values{"csrf": {csrf}, "ticket": {ticket}, "code": {code}})
	msg := ""
	if m := twoStepError.FindStringSubmatch(body); m != nil {
		msg = m[1]
	}
	return resp.StatusCode, msg
}

// signedIn reports whether c has a session: the overview answers it.
func (s *twoStepSite) signedIn(t *testing.T, c *http.Client) bool {
	t.Helper()
	resp, _ := httpcall.Form(t, c, http.MethodGet, s.base+"/", nil)
	return resp.StatusCode == http.StatusOK
}

// A right password of a user with two-step on starts no session: only
// the second step's right code does, and a wrong one is refused, logged
// with the user's name and leaves the browser signed out.
func TestNoSessionExistsBeforeTheSecondStep(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.tick(1)
	c := consoleClient(t)
	csrf, ticket := s.passwordStep(t, c)
	if s.signedIn(t, c) {
		t.Fatal("a right password alone signed the browser in")
	}
	if st, msg := s.secondStep(t, c, csrf, ticket, "000000"); st != http.StatusUnauthorized || !strings.Contains(msg, "not the current code") {
		t.Fatalf("a wrong code: %d %q", st, msg)
	}
	if s.signedIn(t, c) {
		t.Fatal("a wrong code signed the browser in")
	}
	if st, _ := s.secondStep(t, consoleClient(t), csrf, ticket, s.code(t, 0)); st != http.StatusForbidden {
		t.Fatalf("the ticket in another browser: %d, want refused", st)
	}
	if st, msg := s.secondStep(t, c, csrf, ticket, s.code(t, 0)); st != http.StatusSeeOther {
		t.Fatalf("the right code: %d %q", st, msg)
	}
	if !s.signedIn(t, c) {
		t.Fatal("the right code did not sign the browser in")
	}
	l := s.logs.String()
	if !strings.Contains(l, "reason="+authlog.ReasonTwoStepCodeWrong) || !strings.Contains(l, "name="+s.owner+" reason="+authlog.ReasonTwoStepCode) || strings.Contains(l, s.secret) {
		t.Fatalf("the log lacks the wrong code or the sign-in, or holds the secret:\n%s", l)
	}
}

// A code is accepted once: the same code again, from another browser
// whose password was right too, is refused as used, and so is an older
// one; a code one step behind the clock is still accepted.
func TestATwoStepCodeIsAcceptedOnce(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.tick(2)
	behind := s.code(t, -1)
	a, b, late := consoleClient(t), consoleClient(t), consoleClient(t)
	csrfA, ticketA := s.passwordStep(t, a)
	csrfB, ticketB := s.passwordStep(t, b)
	if st, msg := s.secondStep(t, a, csrfA, ticketA, behind); st != http.StatusSeeOther {
		t.Fatalf("a code one step behind: %d %q, want it accepted", st, msg)
	}
	if st, msg := s.secondStep(t, b, csrfB, ticketB, behind); st != http.StatusUnauthorized || !strings.Contains(msg, "used already") {
		t.Fatalf("the same code again: %d %q, want it refused as used", st, msg)
	}
	if s.signedIn(t, b) {
		t.Fatal("a replayed code signed a browser in")
	}
	if st, msg := s.secondStep(t, b, csrfB, ticketB, s.code(t, 0)); st != http.StatusSeeOther {
		t.Fatalf("the next code: %d %q", st, msg)
	}
	csrfL, ticketL := s.passwordStep(t, late)
	if st, _ := s.secondStep(t, late, csrfL, ticketL, s.code(t, -2)); st != http.StatusUnauthorized {
		t.Fatalf("a code two steps behind: %d, want refused", st)
	}
	if !strings.Contains(s.logs.String(), "reason="+authlog.ReasonTwoStepCodeReused) {
		t.Fatalf("the replay is not logged:\n%s", s.logs.String())
	}
}

// Wrong codes count against the sign-in limits: past the tries of the
// user from one address, even the right code is throttled.
func TestWrongTwoStepCodesAreThrottledAsWrongPasswords(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.tick(1)
	c := consoleClient(t)
	csrf, ticket := s.passwordStep(t, c)
	throttled := false
	for range 20 {
		st, _ := s.secondStep(t, c, csrf, ticket, "000000")
		if st == http.StatusTooManyRequests {
			throttled = true
			break
		}
		if st != http.StatusUnauthorized {
			t.Fatalf("a wrong code: %d", st)
		}
	}
	if !throttled {
		t.Fatal("20 wrong codes were never throttled")
	}
	if st, _ := s.secondStep(t, c, csrf, ticket, s.code(t, 0)); st != http.StatusTooManyRequests || s.signedIn(t, c) {
		t.Fatalf("the right code once throttled: %d, want 429 and no session", st)
	}
}

// A recovery code signs in once in place of a code, and is audited;
// turning two-step off asks for a code, after which the password alone
// signs in.
func TestARecoveryCodeSignsInOnceAndTurningOffNeedsACode(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	a, b := consoleClient(t), consoleClient(t)
	csrfA, ticketA := s.passwordStep(t, a)
	if st, msg := s.secondStep(t, a, csrfA, ticketA, strings.ToUpper(s.codes[3])); st != http.StatusSeeOther {
		t.Fatalf("a recovery code: %d %q", st, msg)
	}
	csrfB, ticketB := s.passwordStep(t, b)
	if st, _ := s.secondStep(t, b, csrfB, ticketB, s.codes[3]); st != http.StatusUnauthorized {
		t.Fatalf("a recovery code used again: %d, want refused", st)
	}
	recs, err := s.srv.store.AuditList(t.Context(), audit.Query{Action: audit.UserRecoveryCodeUsed})
	if err != nil || len(recs.Records) != 1 || recs.Records[0].ObjectName != s.owner {
		t.Fatalf("recovery codes used, as audited: %+v %v", recs, err)
	}
	_, page := httpcall.Form(t, a, http.MethodGet, s.base+"/account", nil)
	csrf := csrfField.FindStringSubmatch(page)[1]
	if !strings.Contains(page, "Unused recovery codes: 9") {
		t.Fatalf("the account page after a recovery code:\n%s", page)
	}
	s.tick(1)
	if resp, _ := httpcall.Form(t, a, http.MethodPost, s.base+"/account/two-step/off", url.Values{"csrf": {csrf}, "code": {"123456"}}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("turning off with a wrong code: %d", resp.StatusCode)
	}
	if resp, body := httpcall.Form(t, a, http.MethodPost, s.base+"/account/two-step/off", url.Values{"csrf": {csrf}, "code": {s.code(t, 0)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("turning off: %d\n%s", resp.StatusCode, body)
	}
	if st, loc, msg := s.signInUser(t, consoleClient(t), s.owner, ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("the password once two-step is off: %d to %q (%q)", st, loc, msg)
	}
}
