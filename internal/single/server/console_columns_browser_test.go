package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// tallHeaders names the table headers of the page whose text is taller
// than one line of it (a header its column squeezed so that its words
// wrap: the text's box, not the cell's, which is as tall as its row), and
// states, origins (立即运行) and short Run ids the same, with how many it measured.
const tallHeaders = `(() => {
  const out = {Found: 0, Tall: []};
  for (const e of document.querySelectorAll("main th, main .state, main small.origin, main a.run-id")) {
    if (!e.textContent.trim()) { continue; }
    out.Found++;
    const s = getComputedStyle(e);
    const line = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.45;
    const r = document.createRange();
    r.selectNodeContents(e);
    const box = r.getBoundingClientRect().height;
    if (box > line * 1.5) { out.Tall.push(e.textContent.trim()); }
  }
  return out;
})()`

// At a desktop's 1280 px in Chinese and English, the triggers,
// notifications, runs and tokens lists keep each column header, each
// state badge, each Run's origin (立即运行) and each short Run id on one
// line: no column is squeezed to one character's width; on a phone they
// are cards no wider than its screen.
func TestTableHeadersAndStatesKeepOneLineAtADesktopsWidth(t *testing.T) {
	ctx := browsertest.Start(t)
	s := startToldSite(t, 1)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(s.tokens[apitoken.Admin], "概览"))
	for _, l := range []string{"zh", "en"} {
		for _, page := range []string{"triggers", "notifications", "runs", "tokens"} {
			browsertest.Step(t, ctx, "the "+l+" "+page+" page", chromedp.Navigate(s.base+"/"+page+"?lang="+l), chromedp.WaitVisible("main table tbody tr"))
			got := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
				Found int
				Tall  []string
			}](tallHeaders))
			if got.Found < 5 || len(got.Tall) > 0 {
				t.Errorf("the %s %s page at 1280 px: %d headers and states, these on more than one line: %q", l, page, got.Found, got.Tall)
			}
			browsertest.Screenshot(t, ctx, dir, page+"-"+l+"-1280.png", 1280)
		}
	}
	// A phone's 390 px shows the same lists as cards, none wider than the
	// screen.
	browsertest.Step(t, ctx, "a phone", chromedp.EmulateViewport(390, 844))
	for _, page := range []string{"triggers", "notifications", "runs", "tokens"} {
		browsertest.Step(t, ctx, "the zh "+page+" page on a phone", chromedp.Navigate(s.base+"/"+page+"?lang=zh"), chromedp.WaitVisible("main table tbody tr"))
		browsertest.Screenshot(t, ctx, dir, page+"-zh-390.png", 390)
	}
}
