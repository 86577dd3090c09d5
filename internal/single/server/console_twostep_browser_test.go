package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, in English: the owner turns two-step sign-in on
// from the account page (the key read from the page's otpauth:// address,
// as an app that takes it typed would), signs out, and signs in again
// with the password and then the app's code. The owner then requires it
// of everyone on the account page, and a user without it who signs in is
// kept at its set-up, every other page sending them back. Then, in
// Chinese, the second step's page speaks Chinese.
func TestTwoStepSignInInABrowserTurnsOnAndSignsInWithACode(t *testing.T) {
	ctx := browsertest.Start(t)
	now := &atomic.Int64{}
	now.Store(time.Now().Add(time.Minute).Truncate(account.TwoStepPeriod * time.Second).UnixMilli())
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true",
		func(c *Config) { c.Logger, c.NowMs = slog.New(slog.DiscardHandler), now.Load })
	b := site.base
	dir := browsertest.ArtifactDir(t)
	const width = 1024
	if _, err := account.Create(t.Context(), site.srv.store, "tester", ids.New(), "vera", account.Operator, ownerPassword); err != nil {
		t.Fatal(err)
	}
	signIn := func(user string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			for _, a := range []chromedp.Action[chromedp.Void]{
				chromedp.WaitVisible(chromedp.ID("password")),
				chromedp.SendKeys(chromedp.ID("user"), user),
				chromedp.SendKeys(chromedp.ID("password"), ownerPassword),
				chromedp.Click(chromedp.ID("signin-user")),
			} {
				if _, err := a(ctx, tg); err != nil {
					return chromedp.Void{}, err
				}
			}
			return chromedp.Void{}, nil
		}
	}
	password := func() chromedp.Action[chromedp.Void] { return signIn(site.owner) }
	browsertest.Step(t, ctx, "sign in with the password", chromedp.EmulateViewport(width, 800), chromedp.Navigate(b+"/signin?lang=en"),
		password(), browsertest.WaitText("main h1", "Overview"))
	browsertest.Step(t, ctx, "begin two-step sign-in", chromedp.Click(chromedp.ID("nav-account")),
		chromedp.Click(chromedp.ID("two-step-begin")), chromedp.WaitVisible(chromedp.ID("two-step-uri")))
	browsertest.Screenshot(t, ctx, dir, "two-step-key.png", width)
	key, err := otp.NewKeyFromURL(browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("two-step-uri"))))
	if err != nil {
		t.Fatalf("the page's otpauth:// address: %v", err)
	}
	code := func() string {
		t.Helper()
		c, err := totp.GenerateCodeCustom(key.Secret(), time.UnixMilli(now.Load()), totp.ValidateOpts{Period: account.TwoStepPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	browsertest.Step(t, ctx, "turn it on with a code and the password",
		chromedp.SendKeys(chromedp.ID("ts-code"), code()),
		chromedp.SendKeys(chromedp.ID("ts-current"), ownerPassword),
		chromedp.Click(chromedp.ID("two-step-turn-on")),
		browsertest.WaitText("#two-step", "Your recovery codes"),
		chromedp.WaitVisible(chromedp.ID("recovery-codes")))
	browsertest.Step(t, ctx, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signed-out")))
	now.Add(account.TwoStepPeriod * 1000)
	browsertest.Step(t, ctx, "the password leads to the second step", password(),
		browsertest.WaitText("#signin-two-step-form h2", "Two-step sign-in"),
		browsertest.WaitText("#two-step-help", "Your password is right."))
	browsertest.Screenshot(t, ctx, dir, "two-step-signin-en.png", width)
	browsertest.Step(t, ctx, "the code signs in",
		chromedp.SendKeys(chromedp.ID("two-step-code"), code()),
		chromedp.Click(chromedp.ID("signin-two-step")),
		browsertest.WaitText("main h1", "Overview"))
	browsertest.Step(t, ctx, "require it of everyone", chromedp.Click(chromedp.ID("nav-account")),
		chromedp.Click(chromedp.ID("two-step-everyone-require")), chromedp.WaitVisible(chromedp.ID("two-step-everyone-stop")))
	browsertest.Step(t, ctx, "a user without it is kept at its set-up", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signed-out")),
		signIn("vera"), browsertest.WaitText("#two-step-required", "Two-step sign-in is required for every user of this console"),
		chromedp.WaitVisible(chromedp.ID("two-step-begin")))
	browsertest.Screenshot(t, ctx, dir, "two-step-wall-en.png", width)
	browsertest.Step(t, ctx, "another page sends them back", chromedp.Navigate(b+"/runs"), chromedp.WaitVisible(chromedp.ID("two-step-required")))

	browsertest.Step(t, ctx, "sign out and sign in again in Chinese", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signed-out")),
		chromedp.Navigate(b+"/signin?lang=zh"), password(),
		browsertest.WaitText("#signin-two-step-form h2", "两步验证"),
		browsertest.WaitText("#two-step-help", "密码正确。请输入身份验证器应用当前显示的验证码，或一个恢复码。此步骤在 5 分钟后失效。"),
		browsertest.WaitText("#signin-two-step", "验证并登录"),
		browsertest.WaitText("label[for=two-step-code]", "应用中的验证码，或一个恢复码"))
	browsertest.Screenshot(t, ctx, dir, "two-step-signin-zh.png", width)
}
