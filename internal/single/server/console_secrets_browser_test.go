package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on a phone, in Chinese: open Secrets from the nav,
// find the secret a task uses listed as missing, follow its row's link,
// which fills in the name, type a value of two lines and save: the page
// says it was created and lists it as defined, fits the phone, and holds
// no byte of the value; the file holds it.
func TestConsoleSecretsInABrowserSetsAMissingSecretInChineseOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startSecretsSite(t, nil)
	b := site.base
	dir := browsertest.ArtifactDir(t)
	const value = "cookie=s3cr3t-browser-value\nline-two-of-it"

	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	browsertest.Step(t, ctx, "open Secrets from the nav", browsertest.OpenMenu(), chromedp.Click(chromedp.ID("nav-secrets")),
		browsertest.WaitText("main h1", "密钥"),
		browsertest.WaitText("#secret-shop_api_key", "缺失：被使用但未定义"),
		browsertest.WaitText("#secret-shop_api_key", "任务 report，环境变量 API_KEY"))
	browsertest.Screenshot(t, ctx, dir, "secrets-missing-390x844.png", 390)
	browsertest.Step(t, ctx, "set it from its row", chromedp.Click(`#secret-shop_api_key td.actions a`),
		chromedp.WaitVisible(chromedp.ID("sec-value")))
	if name := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("sec-name").value`)); name != "shop_api_key" {
		t.Fatalf("the row's link filled in the name %q, want shop_api_key", name)
	}
	browsertest.Step(t, ctx, "type the value and save",
		chromedp.SendKeys(chromedp.ID("sec-value"), value),
		chromedp.Click(chromedp.ID("sec-save")),
		browsertest.WaitText("#sec-done", "密钥 shop_api_key 已创建。下一次需要它的运行会读取它，无需重启。"),
		browsertest.WaitText("#secret-shop_api_key", "已定义"))
	browsertest.Screenshot(t, ctx, dir, "secrets-created-390x844.png", 390)
	html := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	for _, part := range strings.Split(value, "\n") {
		if strings.Contains(html, part) {
			t.Errorf("the page after the save holds the value's %q", part)
		}
	}
	if got := secretsFile(t, site)["shop_api_key"]; got != value {
		t.Errorf("the file holds %q, want the two lines typed", got)
	}
}
