package server

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// laptopHeader reports the header's rows at the browser's width: its
// shown items (the brand, every link, the language switch, the colour
// chooser's button, the sign-out button) are one row when each lies
// wholly above none of the others, so Wrapped lists those that start
// below the bottom of another, and the page's width.
const laptopHeader = `(() => {
 const items = [...document.querySelectorAll('header .brand, header .menu-links > a, header .menu-links > span > a, header .menu-links > details > summary, header .menu-links > form button')]
  .filter(e => e.getClientRects().length > 0).map(e => ({r: e.getBoundingClientRect(), t: (e.textContent || '').trim()}));
 const bottom = Math.min(...items.map(i => i.r.bottom));
 return {Items: items.length, Wrapped: items.filter(i => i.r.top >= bottom).map(i => i.t), Width: document.documentElement.scrollWidth};
})()`

// headerRows is what laptopHeader reports.
type headerRows struct {
	Items   int
	Wrapped []string
	Width   int
}

// In Chromium at a laptop's 1280 px, an admin's header — every page's
// link, the language switch, the colour chooser, the account and
// sign-out — is one row, in English and in Chinese, light and dark, and
// the page does not scroll sideways. The chooser, opened without a
// script, shows its three colours below the row, which stays one row,
// and choosing one sets it.
func TestAnAdminsHeaderIsOneRowOnALaptopInEitherLanguageAndColours(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a laptop without scripts", browsertest.Scripts(false), chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(site.base+"/signin?lang=en"), browsertest.SignInWithToken(site.tokens[apitoken.Admin], "Overview"))
	for _, l := range []string{"en", "zh"} {
		for _, scheme := range []string{"light", "dark"} {
			browsertest.Step(t, ctx, "the triggers list in "+l+", "+scheme, browsertest.ColorScheme(scheme), chromedp.Navigate(site.base+"/triggers?lang="+l),
				chromedp.WaitVisible(chromedp.CSS("main h1")))
			if got := browsertest.Value(t, ctx, chromedp.Evaluate[headerRows](laptopHeader)); got.Items < 2 || len(got.Wrapped) > 0 || got.Width > 1280 {
				t.Errorf("%s, %s: the header's %d items have %q below the others on a page %d px wide; want one row within 1280 px", l, scheme, got.Items, got.Wrapped, got.Width)
				browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("header-row-1280-%s-%s.png", l, scheme), 1280)
			}
		}
	}
	browsertest.Step(t, ctx, "open the colours", browsertest.ColorScheme("light"), chromedp.Click(chromedp.ID("themes-open")), chromedp.WaitVisible(chromedp.ID("theme-dark")))
	browsertest.Screenshot(t, ctx, dir, "header-colours-1280.png", 1280)
	if got := browsertest.Value(t, ctx, chromedp.Evaluate[headerRows](laptopHeader)); len(got.Wrapped) > 0 {
		t.Errorf("with the colours open the header has %q below the others; want the colours below it and the row whole", got.Wrapped)
	}
	browsertest.Step(t, ctx, "choose dark", chromedp.Click(chromedp.ID("theme-dark")), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="dark"] main h1`)))
}

// On a laptop with a touch screen at 1280 px — a coarse pointer, so every
// header link is a target a finger hits, 44 px high — an admin's header
// is still one row, in English and in Chinese, and the page does not
// scroll sideways.
func TestAnAdminsHeaderIsOneRowOnATouchLaptopInEitherLanguage(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a touch laptop", chromedp.EmulateViewport(1280, 800, chromedp.EmulateTouch),
		chromedp.Navigate(site.base+"/signin?lang=en"), browsertest.SignInWithToken(site.tokens[apitoken.Admin], "Overview"))
	for _, l := range []string{"en", "zh"} {
		browsertest.Step(t, ctx, "the triggers list in "+l, chromedp.Navigate(site.base+"/triggers?lang="+l), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if !browsertest.Value(t, ctx, chromedp.Evaluate[bool](`matchMedia("(pointer: coarse)").matches`)) {
			t.Fatal("the browser's pointer is not coarse: the touch screen was not emulated, so the header was measured as a mouse's")
		}
		if got := browsertest.Value(t, ctx, chromedp.Evaluate[headerRows](laptopHeader)); got.Items < 2 || len(got.Wrapped) > 0 || got.Width > 1280 {
			t.Errorf("%s: the header's %d items have %q below the others on a touch screen %d px wide; want one row within 1280 px", l, got.Items, got.Wrapped, got.Width)
			browsertest.Screenshot(t, ctx, dir, "header-row-1280-touch-"+l+".png", 1280)
		}
	}
}
