package server

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The words the wall says, in both languages.
const (
	wallEN = "Two-step sign-in is required for every user of this console, and yours is not set up yet"
	wallZH = "此控制台要求每位用户启用两步验证，而你的尚未设置"
)

// requireTwoStep requires two-step sign-in of every user of the site, or
// not, as `ql users require-two-step` does.
func (s *consoleSite) requireTwoStep(t *testing.T, on bool) {
	t.Helper()
	if _, err := s.srv.store.TwoStepRequire(t.Context(), on, "tester"); err != nil {
		t.Fatal(err)
	}
}

// walledUser adds the operator vera, requires two-step sign-in and signs
// vera in with the password; it returns the browser and the account
// page's CSRF value.
func walledUser(t *testing.T, site *consoleSite) (*http.Client, string) {
	t.Helper()
	if _, err := account.Create(t.Context(), site.srv.store, "tester", ids.New(), "vera", account.Operator, ownerPassword); err != nil {
		t.Fatal(err)
	}
	site.requireTwoStep(t, true)
	c := consoleClient(t)
	if st, loc, msg := site.signInUser(t, c, "vera", ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("vera's sign-in: %d to %q (%q)", st, loc, msg)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account", nil)
	m := csrfField.FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("vera's account page: %d\n%s", resp.StatusCode, page)
	}
	return c, m[1]
}

// sentToSetUp reports whether a GET of page was sent to the set-up.
func sentToSetUp(t *testing.T, c *http.Client, page string) bool {
	t.Helper()
	resp, _ := httpcall.Form(t, c, http.MethodGet, page, nil)
	return resp.StatusCode == http.StatusSeeOther && resp.Header.Get("Location") == "/account#two-step"
}

// While two-step sign-in is required, a user who signed in with the
// password and has none is sent from every page to the account page,
// which says why in English and in Chinese and offers the set-up but not
// the password change; every form but the set-up's is refused with
// two_step_required and does nothing.
func TestAUserWithoutTwoStepIsSentToSetItUpFromEveryPage(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c, csrf := walledUser(t, site)
	for _, p := range []string{"/", "/triggers", "/triggers/" + site.triggerID, "/runs", "/notifications", "/no-such-page"} {
		if !sentToSetUp(t, c, site.base+p) {
			t.Errorf("%s was not sent to the set-up", p)
		}
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account?lang=en", nil)
	if !strings.Contains(page, `id="two-step-required"`) || !strings.Contains(html.UnescapeString(page), wallEN) || !strings.Contains(page, `id="two-step-begin"`) || strings.Contains(page, `id="password-form"`) {
		t.Fatalf("the account page at the wall, in English:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account?lang=zh", nil); !strings.Contains(page, wallZH) {
		t.Fatalf("the account page at the wall, in Chinese:\n%s", page)
	}
	for _, p := range []string{"/triggers/" + site.triggerID + "/pause", "/account/password"} {
		resp, body := httpcall.Form(t, c, http.MethodPost, site.base+p+"?lang=en", url.Values{"csrf": {csrf}, "current": {ownerPassword}, "password": {newPassword}, "password2": {newPassword}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(html.UnescapeString(body), "two-step sign-in is required for every user of this console, and yours is not set up") {
			t.Fatalf("POST %s at the wall: %d, want refused\n%s", p, resp.StatusCode, body)
		}
	}
	if d, err := site.srv.store.TriggerDetail(t.Context(), site.triggerID, 1); err != nil || d.PausedAtMs != nil {
		t.Fatalf("the trigger after a pause at the wall: paused at %v (%v)", d.PausedAtMs, err)
	}
}

// A user at the wall sets two-step sign-in up on the account page (the
// QR code, a code and the password) and then uses every page.
func TestAUserAtTheWallSetsUpTwoStepAndGoesOn(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c, csrf := walledUser(t, site)
	if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/begin", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("begin at the wall: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/account/two-step/qr.png", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the QR code at the wall: %d", resp.StatusCode)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account", nil)
	m := twoStepURI.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the account page at the wall shows no key:\n%s", page)
	}
	key, err := otp.NewKeyFromURL(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCodeCustom(key.Secret(), time.Now(), totp.ValidateOpts{Period: account.TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/confirm", url.Values{"csrf": {csrf}, "code": {code}, "current": {ownerPassword}}); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="recovery-codes"`) {
		t.Fatalf("confirm at the wall: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := httpcall.Form(t, c, http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the Runs page once two-step is on: %d\n%s", resp.StatusCode, body)
	}
}

// A user at the wall may sign out.
func TestAUserAtTheWallMaySignOut(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c, csrf := walledUser(t, site)
	if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/signout", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out at the wall: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/account", nil); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/signin") {
		t.Fatalf("the account page after signing out: %d to %q, want the sign-in", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// Required two-step sign-in does not touch API tokens: the API answers
// a token as before, and a console session signed in with one is never
// walled.
func TestTwoStepRequiredLeavesTokensAlone(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	site.requireTwoStep(t, true)
	if st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/triggers", site.tokens[apitoken.Read], nil); st != http.StatusOK {
		t.Fatalf("the API with a token while two-step is required: %d\n%s", st, body)
	}
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	for _, p := range []string{"/", "/runs", "/tokens"} {
		if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+p, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("%s in a token's session while two-step is required: %d", p, resp.StatusCode)
		}
	}
}

// signInWithCode signs the owner of s in with the password and the app's
// next code; it returns the browser and its account page's CSRF value
// and page.
func (s *twoStepSite) signInWithCode(t *testing.T) (*http.Client, string, string) {
	t.Helper()
	s.tick(1)
	c := consoleClient(t)
	csrf, ticket := s.passwordStep(t, c)
	if st, msg := s.secondStep(t, c, csrf, ticket, s.code(t, 0)); st != http.StatusSeeOther {
		t.Fatalf("the second step: %d (%q)", st, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, s.base+"/account", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the account page:\n%s", page)
	}
	return c, m[1], page
}

// While two-step sign-in is required, a user may not turn their own off:
// the account page offers no such form and says why, and the form sent
// all the same is refused with two_step_required_stays_on, its code not
// spent, two-step still on.
func TestAUserMayNotTurnTheirOwnTwoStepOffWhileItIsRequired(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.requireTwoStep(t, true)
	c, csrf, page := s.signInWithCode(t)
	if strings.Contains(page, `id="two-step-off-form"`) || !strings.Contains(page, `id="two-step-stays-on"`) {
		t.Fatalf("the account page of a user with two-step while it is required:\n%s", page)
	}
	s.tick(1)
	resp, body := httpcall.Form(t, c, http.MethodPost, s.base+"/account/two-step/off", url.Values{"csrf": {csrf}, "code": {s.code(t, 0)}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(html.UnescapeString(body), "so yours stays on") {
		t.Fatalf("turning one's own off while it is required: %d\n%s", resp.StatusCode, body)
	}
	u, _, err := s.srv.store.UserCredentials(t.Context(), s.owner)
	if err != nil {
		t.Fatal(err)
	}
	if ts, err := s.srv.store.TwoStepOf(t.Context(), u.ID); err != nil || !ts.On {
		t.Fatalf("two-step after the refusal: %+v (%v), want on", ts, err)
	}
	if used, err := s.srv.store.TwoStepUseStep(t.Context(), u.ID, account.TwoStepStep(time.UnixMilli(s.now.Load()))); err != nil || !used {
		t.Fatalf("the refused form's code was spent: %v (%v)", used, err)
	}
}

// An operator's reset of a user's two-step while it is required puts the
// user back at the wall at the next sign-in, with the password alone.
func TestAResetWhileTwoStepIsRequiredPutsTheUserBackAtTheWall(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.requireTwoStep(t, true)
	if done, err := s.srv.store.UserResetTwoStep(t.Context(), s.owner, "tester"); err != nil || done != account.ResetOn {
		t.Fatalf("reset: %v (%v)", done, err)
	}
	c := consoleClient(t)
	if st, loc, msg := s.signInUser(t, c, s.owner, ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("the password after the reset: %d to %q (%q), want signed in", st, loc, msg)
	}
	if !sentToSetUp(t, c, s.base+"/") {
		t.Fatal("the overview after the reset was not sent to the set-up")
	}
}

// An owner requires two-step sign-in of every user on the account page,
// audited with who and on or off, and stops requiring it there; an
// owner without two-step of their own is refused with
// two_step_required_own_first, nothing changed.
func TestAnOwnerRequiresTwoStepOfEveryoneOnceTheirOwnIsOn(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	if _, err := account.Create(t.Context(), s.srv.store, "tester", ids.New(), "oscar", account.Owner, ownerPassword); err != nil {
		t.Fatal(err)
	}
	required := func() bool {
		t.Helper()
		on, err := s.srv.store.TwoStepRequired(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return on
	}
	post := func(c *http.Client, csrf, on string) (*http.Response, string) {
		return httpcall.Form(t, c, http.MethodPost, s.base+"/account/two-step/required?lang=en", url.Values{"csrf": {csrf}, "required": {on}})
	}
	oscar := consoleClient(t)
	if st, loc, msg := s.signInUser(t, oscar, "oscar", ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("oscar's sign-in: %d to %q (%q)", st, loc, msg)
	}
	_, page := httpcall.Form(t, oscar, http.MethodGet, s.base+"/account", nil)
	if !strings.Contains(page, `id="two-step-everyone-require"`) {
		t.Fatalf("an owner's account page offers no requirement:\n%s", page)
	}
	if resp, body := post(oscar, csrfField.FindStringSubmatch(page)[1], "on"); resp.StatusCode != http.StatusConflict || !strings.Contains(html.UnescapeString(body), "Set up your own two-step sign-in first") || required() {
		t.Fatalf("an owner without two-step requiring it: %d, required %v\n%s", resp.StatusCode, required(), body)
	}
	c, csrf, _ := s.signInWithCode(t)
	if resp, body := post(c, csrf, "on"); resp.StatusCode != http.StatusSeeOther || !required() {
		t.Fatalf("the owner with two-step requiring it: %d, required %v\n%s", resp.StatusCode, required(), body)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, s.base+"/account", nil); !strings.Contains(page, `id="two-step-everyone-stop"`) {
		t.Fatalf("the account page once it is required offers no way back:\n%s", page)
	}
	if resp, body := post(c, csrf, "off"); resp.StatusCode != http.StatusSeeOther || required() {
		t.Fatalf("stop requiring it: %d, required %v\n%s", resp.StatusCode, required(), body)
	}
	p, err := s.srv.store.AuditList(t.Context(), audit.Query{Action: audit.SettingTwoStepRequired})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Records {
		got = append(got, r.Note+" by "+r.Actor)
	}
	if want := "off by console:user:" + s.owner + "@127.0.0.1,on by console:user:" + s.owner + "@127.0.0.1"; strings.Join(got, ",") != want {
		t.Fatalf("changes recorded %q; want %q", got, want)
	}
}
