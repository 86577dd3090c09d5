package replica

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

var (
	twoStepURIIn = regexp.MustCompile(`<code id="two-step-uri">([^<]+)</code>`)
	ticketIn     = regexp.MustCompile(`name="ticket" value="([^"]+)"`)
)

// twoStepReplicas starts two replicas of one cluster whose owner "lead"
// turned two-step sign-in on at the first; code gives the app's code
// ahead of the wall clock.
func twoStepReplicas(t *testing.T) (baseA, baseB string, code func(ahead time.Duration) string) {
	t.Helper()
	a, b := leadReplicas(t)
	baseA, baseB = "http://"+a.addr, "http://"+b.addr
	_, _, code = leadTwoStepAt(t, baseA)
	return baseA, baseB, code
}

// leadTwoStepAt signs lead in at base with the password and turns its
// two-step sign-in on there; it returns that browser, still signed in,
// its session's CSRF value and the app's code ahead of the wall clock.
func leadTwoStepAt(t *testing.T, base string) (*http.Client, string, func(ahead time.Duration) string) {
	t.Helper()
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"user": {"lead"}, "password": {leadPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in on %s: %d", base, resp.StatusCode)
	}
	csrf := formCSRF(t, c, base+"/account")
	if resp, body := httpcall.Form(t, c, http.MethodPost, base+"/account/two-step/begin", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("begin: %d\n%s", resp.StatusCode, body)
	}
	_, page := get("/account")
	m := twoStepURIIn.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the account page at %s shows no key:\n%s", base, page)
	}
	key, err := otp.NewKeyFromURL(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	code := func(ahead time.Duration) string {
		c, err := totp.GenerateCodeCustom(key.Secret(), time.Now().Add(ahead), totp.ValidateOpts{Period: account.TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if resp, body := httpcall.Form(t, c, http.MethodPost, base+"/account/two-step/confirm", url.Values{"csrf": {csrf}, "code": {code(0)}, "current": {leadPassword}}); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="recovery-codes"`) {
		t.Fatalf("confirm at %s: %d\n%s", base, resp.StatusCode, body)
	}
	return c, csrf, code
}

// passwordAt sends lead's password to the sign-in at base in a new
// browser; it returns the browser, its sign-in CSRF value and the second
// step's ticket.
func passwordAt(t *testing.T, base string) (*http.Client, string, string) {
	t.Helper()
	c, get := consoleBrowser(t, base)
	_, page := get("/signin")
	signinCSRF := csrfIn.FindStringSubmatch(page)[1]
	resp, body := httpcall.Form(t, c, http.MethodPost, base+"/signin", url.Values{"csrf": {signinCSRF}, "user": {"lead"}, "password": {leadPassword}})
	tm := ticketIn.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || tm == nil {
		t.Fatalf("the password on %s: %d, want the second step\n%s", base, resp.StatusCode, body)
	}
	return c, signinCSRF, tm[1]
}

// A user turns two-step sign-in on at one replica; a sign-in at another
// then asks for a code, and a code accepted at one replica is refused as
// used at the other: the step accepted is the database's. The code used
// is the app's next one (one step ahead is accepted), so no test waits
// for the clock.
func TestATwoStepCodeUsedOnOneReplicaIsRefusedOnTheOther(t *testing.T) {
	t.Parallel()
	baseA, baseB, code := twoStepReplicas(t)
	next := code(account.TwoStepPeriod * time.Second)
	secondStep := func(base string) (int, string) {
		c, signinCSRF, ticket := passwordAt(t, base)
		resp, body := httpcall.Form(t, c, http.MethodPost, base+"/signin/two-step", url.Values{"csrf": {signinCSRF}, "ticket": {ticket}, "code": {next}})
		return resp.StatusCode, body
	}
	if st, body := secondStep(baseB); st != http.StatusSeeOther {
		t.Fatalf("the next code on replica b: %d\n%s", st, body)
	}
	if st, body := secondStep(baseA); st != http.StatusUnauthorized || !strings.Contains(body, "used already") {
		t.Fatalf("the same code on replica a: %d, want refused as used\n%s", st, body)
	}
}

// The second step is the cluster's, not one replica's: a password typed
// at one replica is followed by its code at another (a balancer that
// does not keep a browser on one replica), and the ticket, once used
// there, has ended at the first.
func TestASecondStepStartedOnOneReplicaFinishesOnAnother(t *testing.T) {
	t.Parallel()
	baseA, baseB, code := twoStepReplicas(t)
	c, signinCSRF, ticket := passwordAt(t, baseA)
	step := func(base string) (int, string) {
		resp, body := httpcall.Form(t, c, http.MethodPost, base+"/signin/two-step", url.Values{"csrf": {signinCSRF}, "ticket": {ticket}, "code": {code(account.TwoStepPeriod * time.Second)}})
		return resp.StatusCode, body
	}
	if st, body := step(baseB); st != http.StatusSeeOther {
		t.Fatalf("the code on replica b after the password on replica a: %d, want signed in\n%s", st, body)
	}
	if st, body := step(baseA); st != http.StatusUnauthorized || !strings.Contains(body, "second step has ended") {
		t.Fatalf("the ticket again on replica a: %d, want it ended\n%s", st, body)
	}
}
