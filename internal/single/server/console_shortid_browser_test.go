package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// shortIDs measures the page's short ids: each one's link and title, the
// text a person sees (the ellipsis drawn between the head and the tail),
// what selecting it copies, and whether it keeps one line; and each
// "ran" line under a Run's total, whether it keeps one line.
const shortIDs = `(() => {
  const out = {IDs: [], Ran: 0, Tall: []};
  const oneLine = e => {
    const s = getComputedStyle(e);
    const line = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.45;
    const r = document.createRange();
    r.selectNodeContents(e);
    return r.getBoundingClientRect().height <= line * 1.5;
  };
  for (const a of document.querySelectorAll("main a.run-id")) {
    const code = a.querySelector("code.sid");
    const sel = getSelection();
    sel.removeAllRanges();
    const r = document.createRange();
    r.selectNodeContents(code);
    sel.addRange(r);
    const head = code.querySelector(".sid-head");
    out.IDs.push({Href: a.getAttribute("href"), Title: a.title, Copied: sel.toString(),
      Seen: head.textContent + getComputedStyle(head, "::after").content.replaceAll('"', "") + code.lastChild.textContent,
      Width: code.getBoundingClientRect().width, MidWidth: code.querySelector(".sid-mid").getBoundingClientRect().width});
    if (!oneLine(code)) { out.Tall.push(a.title); }
  }
  for (const e of document.querySelectorAll("main small.ran")) {
    out.Ran++;
    if (!oneLine(e)) { out.Tall.push(e.textContent); }
  }
  return out;
})()`

type shownIDs struct {
	IDs []struct {
		Href, Title, Copied, Seen string
		Width, MidWidth           float64
	}
	Ran  int
	Tall []string
}

// On the Runs list and the notifications, at a desktop's 1280 px and on a
// 390 px phone, in both languages, each Run id reads as its first eight
// characters, an ellipsis and its last four, on one line, while its link
// and title hold the whole id and selecting it copies the whole id (the
// ellipsis is drawn, not copied); the Runs list's "ran" line under each
// finished Run's total keeps one line, and no page scrolls sideways.
func TestShortRunIdsCopyWholeAndTheRanLineFitsAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	s := startToldSite(t, 1)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.base+"/signin?lang=en"),
		browsertest.SignInWithToken(s.tokens[apitoken.Admin], "Overview"))
	for _, width := range []int{1280, 390} {
		browsertest.Step(t, ctx, "the screen", chromedp.EmulateViewport(int64(width), 900))
		for _, l := range []string{"en", "zh"} {
			for _, page := range []string{"runs", "notifications"} {
				browsertest.Step(t, ctx, "the "+l+" "+page+" page", chromedp.Navigate(s.base+"/"+page+"?lang="+l), chromedp.WaitVisible("main a.run-id"))
				got := browsertest.Value(t, ctx, chromedp.Evaluate[shownIDs](shortIDs))
				if len(got.IDs) == 0 || len(got.Tall) > 0 || (page == "runs" && got.Ran == 0) {
					t.Errorf("%s %s at %d px: %d short ids and %d ran lines, these on more than one line: %q", l, page, width, len(got.IDs), got.Ran, got.Tall)
				}
				for _, id := range got.IDs {
					whole := id.Title
					if len(whole) != 36 || id.Href != "/runs/"+whole || id.Copied != whole || id.Seen != whole[:8]+"…"+whole[32:] || id.MidWidth > 1 {
						t.Errorf("%s %s at %d px: a short id %+v; want the whole id in its link, title and copy, %s…%s in sight", l, page, width, id, whole[:8], whole[32:])
					}
				}
				browsertest.Screenshot(t, ctx, dir, "shortid-"+page+"-"+l+"-"+map[int]string{1280: "1280", 390: "390"}[width]+".png", width)
			}
		}
	}
}
