package server

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser on a 375 px phone and at 1280 px, in English and
// Chinese: a token just created is wholly visible — its paragraph is no
// wider than its box (nothing scrolls sideways), holds the whole token and
// ends within the screen — its Copy button is shown on a secure page (the
// loopback) and, when the browser refuses the copy, says to select the
// token and copy it.
func TestANewTokenIsWhollyVisibleOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startSecretsSite(t, nil)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin"), browsertest.SignInWithToken(site.tokens[apitoken.Admin], "Overview"))
	for _, c := range []struct {
		lang, failed string
		width        int
	}{{"en", "Copy failed: select the token and copy it", 375}, {"zh", "复制失败：请选中令牌后手动复制", 375}, {"en", "Copy failed: select the token and copy it", 1280}} {
		name := fmt.Sprintf("walk-%s-%d", c.lang, c.width)
		browsertest.Step(t, ctx, "create a token at "+name, chromedp.EmulateViewport(int64(c.width), 812),
			chromedp.Navigate(site.base+"/tokens?lang="+c.lang), chromedp.WaitVisible(chromedp.ID("tok-name")),
			chromedp.SendKeys(chromedp.ID("tok-name"), name), chromedp.Click(chromedp.ID("tok-create")),
			chromedp.WaitVisible(chromedp.ID("new-token")))
		shown := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
			Text                     string
			ScrollWidth, ClientWidth int
			Right, Screen            float64
			CopyHidden               bool
		}](`(() => { const e = document.getElementById("new-token"), r = e.getBoundingClientRect();
			return {Text: e.textContent, ScrollWidth: e.parentElement.scrollWidth, ClientWidth: e.parentElement.clientWidth, Right: r.right,
				Screen: document.documentElement.clientWidth, CopyHidden: document.getElementById("tok-copy").hidden}; })()`))
		if !apitoken.LooksLikeToken(shown.Text) || shown.ScrollWidth > shown.ClientWidth || shown.Right > shown.Screen {
			t.Errorf("%s: the token %q is %d px wide in a box of %d, ending at %.0f px of %.0f: not wholly visible",
				name, shown.Text, shown.ScrollWidth, shown.ClientWidth, shown.Right, shown.Screen)
		}
		if shown.CopyHidden {
			t.Errorf("%s: the Copy button is hidden on a secure page", name)
		}
		browsertest.Screenshot(t, ctx, dir, "token-"+name+".png", c.width)
		// The browser refuses the copy, as one does without the
		// permission or the page's focus.
		browsertest.Value(t, ctx, chromedp.Evaluate[bool](`navigator.clipboard.writeText = () => Promise.reject(new DOMException("refused", "NotAllowedError")), true`))
		browsertest.Step(t, ctx, "a refused copy at "+name, chromedp.Click(chromedp.ID("tok-copy")), browsertest.WaitText("#tok-copy", c.failed))
	}
}
