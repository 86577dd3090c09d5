package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser on a 390 px phone, in Chinese: a first start's
// sign-in page leads to the setup page, the owner is created there with
// the logged code and lands signed in on the overview, then changes the
// password on the account page; no page of the walk scrolls sideways.
func TestTheFirstOwnerIsCreatedAndChangesThePasswordOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startSetupSite(t)
	dir := browsertest.ArtifactDir(t)
	const width = 390
	browsertest.Step(t, ctx, "the sign-in page links to the setup page", chromedp.EmulateViewport(width, 844),
		chromedp.Navigate(site.base+"/signin?lang=zh"), browsertest.WaitText("#setup-link", "创建第一个所有者"))
	browsertest.Screenshot(t, ctx, dir, "setup-signin.png", width)
	browsertest.Step(t, ctx, "open the setup page", chromedp.Click(chromedp.CSS("#setup-link a")), chromedp.WaitVisible(chromedp.ID("setup-code")))
	browsertest.Screenshot(t, ctx, dir, "setup-form.png", width)
	browsertest.Step(t, ctx, "create the first owner",
		chromedp.SendKeys(chromedp.ID("setup-user"), "lead"),
		chromedp.SendKeys(chromedp.ID("setup-password"), ownerPassword),
		chromedp.SendKeys(chromedp.ID("setup-password2"), ownerPassword),
		chromedp.SendKeys(chromedp.ID("setup-code"), site.code(t)),
		chromedp.Click(chromedp.ID("setup-create")),
		browsertest.WaitText("main h1", "概览"))
	browsertest.Screenshot(t, ctx, dir, "setup-overview.png", width)
	browsertest.Step(t, ctx, "change the password",
		browsertest.OpenMenu(), chromedp.Click(chromedp.ID("nav-account")), chromedp.WaitVisible(chromedp.ID("pw-current")))
	browsertest.Screenshot(t, ctx, dir, "account-form.png", width)
	browsertest.Step(t, ctx, "save the new password",
		chromedp.SendKeys(chromedp.ID("pw-current"), ownerPassword),
		chromedp.SendKeys(chromedp.ID("pw-new"), newPassword),
		chromedp.SendKeys(chromedp.ID("pw-new2"), newPassword),
		chromedp.Click(chromedp.ID("pw-save")),
		browsertest.WaitText("#password-changed", "密码已修改"))
	browsertest.Screenshot(t, ctx, dir, "account-changed.png", width)
}
