package server

import (
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Starting two-step sign-in again before confirming it replaces the
// waiting secret: the account page shows the new one, a code of the old
// one no longer turns it on, and the new one's does. Until then the
// waiting secret is off: the user signs in with the password alone.
func TestStartingTwoStepAgainReplacesTheUnconfirmedSecret(t *testing.T) {
	t.Parallel()
	now := &atomic.Int64{}
	now.Store(time.Now().Add(time.Minute).Truncate(account.TwoStepPeriod * time.Second).UnixMilli())
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true",
		func(c *Config) { c.Logger, c.NowMs = slog.New(slog.DiscardHandler), now.Load })
	c, csrf := site.signedInUser(t, ownerPassword)
	begin := func() string {
		t.Helper()
		if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/begin", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("begin: %d\n%s", resp.StatusCode, body)
		}
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account", nil)
		m := twoStepURI.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the account page shows no otpauth:// URI:\n%s", page)
		}
		key, err := otp.NewKeyFromURL(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatalf("the URI %q: %v", m[1], err)
		}
		return key.Secret()
	}
	codeOf := func(secret string) string {
		t.Helper()
		code, err := totp.GenerateCodeCustom(secret, time.UnixMilli(now.Load()), totp.ValidateOpts{Period: account.TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return code
	}
	confirm := func(secret string) (int, string) {
		t.Helper()
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/account/two-step/confirm", url.Values{"csrf": {csrf}, "code": {codeOf(secret)}, "current": {ownerPassword}})
		return resp.StatusCode, page
	}

	old := begin()
	site.signedInUser(t, ownerPassword)
	replaced := begin()
	if replaced == old {
		t.Fatal("starting again kept the waiting secret")
	}
	for codeOf(old) == codeOf(replaced) {
		now.Add(account.TwoStepPeriod * 1000)
	}
	if st, page := confirm(old); st != http.StatusUnauthorized {
		t.Fatalf("a code of the replaced secret: %d, want refused\n%s", st, page)
	}
	if st, page := confirm(replaced); st != http.StatusOK || len(recoveryCodes.FindAllStringSubmatch(page, -1)) != account.RecoveryCodes {
		t.Fatalf("a code of the new secret: %d, want it on with its recovery codes\n%s", st, page)
	}
}
