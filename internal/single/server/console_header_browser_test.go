package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// headerRow reports the header: whether its menu is closed, whether the
// header is one row (no taller than twice its menu's button, the brand
// beside that button), the focused element's id or link, whether the
// menu's links are in sight, and the header's height.
const headerRow = `(() => {
 const h = document.querySelector('header').getBoundingClientRect(), s = document.getElementById('menu-open').getBoundingClientRect(),
  b = document.querySelector('header .brand').getBoundingClientRect(), e = document.activeElement;
 return {Closed: !document.getElementById('menu').open, OneRow: s.height > 0 && h.height < 2 * s.height && b.top < s.bottom && s.top < b.bottom,
  Focused: e.id || e.getAttribute('href') || e.tagName.toLowerCase(), LinksShown: document.getElementById('nav-account').getClientRects().length > 0, Height: h.height};
})()`

// header is what headerRow reports.
type header struct {
	Closed, OneRow, LinksShown bool
	Focused                    string
	Height                     float64
}

// colours reports the page's chosen colours (its data-theme) and whether
// its ground is dark.
const colours = `(() => {
 const c = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number);
 return {Theme: document.documentElement.dataset.theme || '', Dark: c[0] + c[1] + c[2] < 3 * 64};
})()`

// look is what colours reports.
type look struct {
	Theme string
	Dark  bool
}

// In Chromium without scripts: on a laptop the header's links are in
// sight, one row; on a 375 px phone the header is one row in English and
// in Chinese, its links folded into a menu; from the
// keyboard, Tab reaches the skip link first, then the brand and the
// menu's button, Enter opens it and Tab reaches its first link. Dark,
// chosen in the menu while the system asks for light, stays on every
// page opened after, the sign-in page after signing out included; light,
// chosen while the system asks for dark, stays likewise; System
// follows the system again, each way.
func TestOnAPhoneTheHeaderIsOneRowAndItsMenusColourChoiceStays(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	b := site.base
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a phone without scripts", browsertest.Scripts(false), chromedp.EmulateViewport(375, 812), browsertest.ColorScheme("light"),
		chromedp.Navigate(b+"/signin?lang=en"), browsertest.SignInWithToken(site.tokens[apitoken.Admin], "Overview"))
	browsertest.Step(t, ctx, "the triggers list on a laptop", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(b+"/triggers"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if got := browsertest.Value(t, ctx, chromedp.Evaluate[header](headerRow)); !got.LinksShown || got.Height > 80 {
		t.Errorf("on a laptop the header's links are shown %v in a header %v px high; want them in sight, in one row", got.LinksShown, got.Height)
	}
	browsertest.Screenshot(t, ctx, dir, "header-1280.png", 1280)
	browsertest.Step(t, ctx, "back to the phone", chromedp.EmulateViewport(375, 812))
	for _, l := range []string{"en", "zh"} {
		browsertest.Step(t, ctx, "the triggers list in "+l, chromedp.Navigate(b+"/triggers?lang="+l), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if got := browsertest.Value(t, ctx, chromedp.Evaluate[header](headerRow)); !got.Closed || !got.OneRow {
			t.Errorf("%s: the phone's header has its menu closed %v and is one row %v; want a closed menu beside the brand, one row", l, got.Closed, got.OneRow)
		}
	}
	for i, want := range []string{"skip", "/", "menu-open"} {
		browsertest.Step(t, ctx, "Tab", chromedp.KeyEvent("\t"))
		if got := browsertest.Value(t, ctx, chromedp.Evaluate[header](headerRow)); got.Focused != want {
			t.Fatalf("Tab %d focused %q; want %q", i+1, got.Focused, want)
		}
	}
	browsertest.Step(t, ctx, "Enter on the menu's button, then Tab", chromedp.KeyEvent("\r"), chromedp.KeyEvent("\t"))
	if got := browsertest.Value(t, ctx, chromedp.Evaluate[header](headerRow)); got.Closed || got.Focused != "/" {
		t.Fatalf("after Enter on the menu's button and Tab: menu closed %v, focus on %q; want the menu open and its first link, the overview, focused", got.Closed, got.Focused)
	}

	seen := func(what string, want look) {
		t.Helper()
		if got := browsertest.Value(t, ctx, chromedp.Evaluate[look](colours)); got != want {
			t.Errorf("%s: colours %q, dark %v; want %q, dark %v", what, got.Theme, got.Dark, want.Theme, want.Dark)
		}
	}
	browsertest.Step(t, ctx, "choose dark", chromedp.Click(chromedp.ID("theme-dark")), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="dark"] main h1`)))
	seen("dark chosen", look{"dark", true})
	browsertest.Step(t, ctx, "the menu open, dark", browsertest.OpenMenu())
	browsertest.Screenshot(t, ctx, dir, "header-menu-dark-375.png", 375)
	browsertest.Step(t, ctx, "open the Runs list", chromedp.Navigate(b+"/runs"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	seen("the Runs list after dark was chosen, the system light", look{"dark", true})
	browsertest.Step(t, ctx, "sign out", browsertest.OpenMenu(), chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("token")))
	seen("the sign-in page after signing out", look{"dark", true})
	browsertest.Step(t, ctx, "sign in again, the system dark, and choose light", browsertest.ColorScheme("dark"), browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"),
		browsertest.OpenMenu(), chromedp.Click(chromedp.ID("theme-light")), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"] main h1`)),
		chromedp.Navigate(b+"/triggers"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	seen("the triggers list after light was chosen, the system dark", look{"light", false})
	browsertest.Step(t, ctx, "choose as the system", browsertest.OpenMenu(), chromedp.Click(chromedp.ID("theme-system")), chromedp.WaitVisible(chromedp.CSS(`#theme-system[aria-current]`)),
		chromedp.Navigate(b+"/runs"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	seen("the Runs list as the system, the system dark", look{"", true})
	browsertest.Step(t, ctx, "the system light", browsertest.ColorScheme("light"))
	seen("the Runs list as the system, the system light", look{"", false})
}
