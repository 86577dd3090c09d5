package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// titleBesideName is, for the first trigger row of the list (or the
// trigger page's heading; not the project's heading above the list), the title and the name as shown, whether the
// title comes first on the name's line, whether either leaves its box or
// the page is wider than the window, and whether the name breaks.
const titleBesideName = `(() => {
  const title = document.querySelector("main td .obj-title, main h1 .obj-title"), name = document.querySelector("main .trigger-name");
  if (!title || !name) { return {Title: "", Name: ""}; }
  const box = title.closest("td, h1").getBoundingClientRect(), t = title.getBoundingClientRect(), n = name.getBoundingClientRect();
  const nameLines = new Set([...name.getClientRects()].map(r => Math.round(r.top))).size;
  return {Title: title.textContent, Name: name.textContent,
    TitleFirst: t.left < n.left || t.top < n.top,
    OutOfBox: t.right > box.right + 1 || n.right > box.right + 1,
    PageOverflows: document.documentElement.scrollWidth > window.innerWidth,
    NameBroken: nameLines > 1};
})()`

type titleShown struct {
	Title, Name                                     string
	TitleFirst, OutOfBox, PageOverflows, NameBroken bool
}

// On a 390 px phone and at a desktop's 1280 px, in Chinese and English,
// the triggers list and the trigger's page show a Chinese title first
// with the trigger's name beside it, neither leaving its box nor widening
// the page, and the name whole on its line.
func TestATitleIsShownBesideItsNameOnTheTriggersList(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	const title = "京东资产统计与每日签到（所有账号，早八点前完成）"
	const file = "project: jd\ntitle: 京东\ntasks:\n  - name: checkin\n    title: 每日签到\n    script: \"true\"\ntriggers:\n  - name: checkin-daily\n" +
		"    title: " + title + "\n    task: checkin\n    cron: '0 8 * * *'\n    timezone: Asia/Shanghai\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Read], "概览"))
	for _, width := range []int64{390, 1280} {
		for _, l := range []string{"zh", "en"} {
			browsertest.Step(t, ctx, "the "+l+" triggers list", chromedp.EmulateViewport(width, 844), chromedp.Navigate(site.base+"/triggers?project=jd&lang="+l),
				browsertest.WaitText("main table", "jd/checkin-daily"))
			for _, page := range []string{"list", "trigger page"} {
				if page == "trigger page" {
					browsertest.Step(t, ctx, "the "+l+" trigger page", chromedp.Click("a.trigger-name"), chromedp.WaitVisible("dl.facts"))
				}
				got := browsertest.Value(t, ctx, chromedp.Evaluate[titleShown](titleBesideName))
				if got.Title != title || got.Name != "jd/checkin-daily" || !got.TitleFirst || got.OutOfBox || got.PageOverflows || got.NameBroken {
					t.Errorf("the %s %s at %d px: %+v; want the title first, the name beside it whole, nothing overflowing", l, page, width, got)
				}
				browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("title-%s-%s-%d.png", strings.ReplaceAll(page, " ", "-"), l, width), int(width))
			}
		}
	}
}
