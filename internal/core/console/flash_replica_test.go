package console

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
)

// replicaPair is two consoles over one database whose sessions it stores,
// as two replicas behind a load balancer that is not sticky, each
// configured by configure too, and the secret of an admin token to sign
// in with.
type replicaPair struct {
	site   *batchSite
	a, b   *Console
	secret string
}

func newReplicaPair(t *testing.T, configure ...func(*Config)) *replicaPair {
	t.Helper()
	var cfg Config
	site := newBatchSite(t, func(c *Config) {
		withTokenAdmin(c)
		for _, f := range configure {
			f(c)
		}
		cfg = *c
	})
	cfg.Sessions = site.st
	secret, _, err := apitoken.Create(t.Context(), site.st, "tester", ids.New(), "owner", apitoken.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &replicaPair{site: site, a: New(cfg), b: New(cfg), secret: secret}
}

// signIn is a browser signed in on c, and its session's CSRF value.
func (p *replicaPair) signIn(t *testing.T, c *Console) (*browser, string) {
	t.Helper()
	br := &browser{c: c, cookies: map[string]string{}}
	if w := br.signIn(t, br.do(http.MethodGet, "/signin", nil).Body.String(), p.secret); w.Code != http.StatusSeeOther || br.cookies[sessionCookie] == "" {
		t.Fatalf("sign-in: %d without a session cookie:\n%s", w.Code, w.Body)
	}
	return br, sessionCSRF(br.cookies[sessionCookie])
}

// createToken sends the new-token form from br and returns the address the
// form's redirect names.
func createToken(t *testing.T, br *browser, csrf, name string) string {
	t.Helper()
	w := br.do(http.MethodPost, "/tokens", url.Values{"csrf": {csrf}, "name": {name}, "scope": {"read"}})
	to := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.Contains(to, flashParam+"=") || tokenSecret.MatchString(to) {
		t.Fatalf("create %s: %d to %q, want 303 naming a flash:\n%s", name, w.Code, to, w.Body)
	}
	return to
}

// A form's result sent on one replica is shown by another serving the same
// session, the redirect's GET reaching it: a new token's secret and a
// batch's outcomes alike, each once; the page loaded again, on either
// replica, shows the page without it.
func TestAFlashMadeOnOneReplicaIsShownOnceByAnotherServingTheSameSession(t *testing.T) {
	t.Parallel()
	p := newReplicaPair(t)
	br, csrf := p.signIn(t, p.a)

	to := createToken(t, br, csrf, "deploy")
	br.c = p.b
	first := br.do(http.MethodGet, to, nil).Body.String()
	secret := tokenSecret.FindString(first)
	if !apitoken.LooksLikeToken(secret) || !strings.Contains(first, `<code id="new-token">`+secret+`</code>`) {
		t.Fatalf("the other replica does not show the new token's secret:\n%s", first)
	}
	for _, c := range []*Console{p.b, p.a} {
		br.c = c
		if again := br.do(http.MethodGet, to, nil).Body.String(); tokenSecret.MatchString(again) || !strings.Contains(again, `id="tok-shown-once"`) {
			t.Fatalf("the tokens page loaded again shows the secret, or does not say it was shown:\n%s", again)
		}
	}

	br.c = p.a
	w := br.do(http.MethodPost, "/triggers/batch", url.Values{"csrf": {csrf}, "do": {"pause"}, "id": {p.site.triggers["a"], p.site.triggers["b"]}})
	to = w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.Contains(to, flashParam+"=") {
		t.Fatalf("batch: %d to %q, want 303 naming a flash:\n%s", w.Code, to, w.Body)
	}
	br.c = p.b
	if lines := batchLines(br.do(http.MethodGet, to, nil).Body.String()); len(lines) != 2 || !strings.HasPrefix(lines[0], "done: ") || !strings.HasPrefix(lines[1], "done: ") {
		t.Fatalf("the other replica shows the batch's outcomes as %q, want both triggers paused", lines)
	}
	for _, c := range []*Console{p.b, p.a} {
		br.c = c
		if again := br.do(http.MethodGet, to, nil).Body.String(); strings.Contains(again, `id="batch-outcomes"`) {
			t.Fatalf("the triggers list loaded again shows the batch's outcomes:\n%s", again)
		}
	}
}

// A new token's secret sent by one session rides in a cookie only that
// session opens: another session (another cookie token) presenting the
// same cookie value at the same address sees the page without it, and the
// session whose form it was still sees it.
func TestAnotherSessionPresentingAFlashCookieSeesNothingOfIt(t *testing.T) {
	t.Parallel()
	p := newReplicaPair(t)
	own, csrf := p.signIn(t, p.a)
	other, _ := p.signIn(t, p.a)
	to := createToken(t, own, csrf, "deploy")
	carried := 0
	for k, v := range own.cookies {
		if k != sessionCookie && strings.Contains(k, "flash") {
			other.cookies[k] = v
			carried++
		}
	}
	if carried == 0 {
		t.Fatalf("the form's answer set no flash cookie: %v", own.cookies)
	}
	if stolen := other.do(http.MethodGet, to, nil).Body.String(); tokenSecret.MatchString(stolen) || !strings.Contains(stolen, `id="tok-shown-once"`) {
		t.Fatalf("another session presenting the flash cookie was shown the secret, or not the page without it:\n%s", stolen)
	}
	if page := own.do(http.MethodGet, to, nil).Body.String(); !tokenSecret.MatchString(page) {
		t.Fatalf("the session whose form it was no longer sees its secret:\n%s", page)
	}
}

// A session's flash cookies in flight together stay within what a proxy
// in front takes of a request's Cookie header: results left unread (their
// pages not followed) are cleared, oldest first, to make room for a new
// one, which is always kept.
func TestASessionsUnreadFlashCookiesStayWithinWhatAProxyTakesOfAHeader(t *testing.T) {
	t.Parallel()
	p := newReplicaPair(t)
	br, csrf := p.signIn(t, p.a)
	// Six large results never read, as six big batches whose pages were
	// not followed leave: hex of random bytes deflates to about half.
	for range 6 {
		noise := make([]byte, 2000)
		if _, err := rand.Read(noise); err != nil {
			t.Fatal(err)
		}
		key := randomID()
		v, ok := sealFlash(br.cookies[sessionCookie], key, flash{Message: hex.EncodeToString(noise), expiresMs: p.a.cfg.NowMs() + flashTTL.Milliseconds()})
		if !ok || len(v) < 2000 {
			t.Fatalf("a large result sealed to %d characters (carried %v), want a cookie of 2000 or more", len(v), ok)
		}
		br.cookies[p.a.flashCookieName(key)] = v
	}
	to := createToken(t, br, csrf, "deploy")
	total := 0
	for k, v := range br.cookies {
		if strings.HasPrefix(k, p.a.flashCookieName("")) {
			total += len(k) + len(v)
		}
	}
	if total > maxFlashCookies {
		t.Fatalf("the session's flash cookies hold %d bytes of names and values after a new one, want at most %d", total, maxFlashCookies)
	}
	if page := br.do(http.MethodGet, to, nil).Body.String(); !tokenSecret.MatchString(page) {
		t.Fatalf("the new token's secret, made while large results were unread, is not shown:\n%s", page)
	}
}
