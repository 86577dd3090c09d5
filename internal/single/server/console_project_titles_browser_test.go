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

// projectHeadingShown is the project's heading above the triggers list
// and the project picker as shown: the title and name, whether the title
// comes first, whether either leaves the heading's box, whether the
// picker leaves the window or the page is wider than it, and the picker's
// chosen option's text.
const projectHeadingShown = `(() => {
  const h = document.querySelector("#project-heading"), pick = document.querySelector("#triggers-project");
  if (!h || !pick) { return {Title: "", Name: ""}; }
  const title = h.querySelector(".obj-title"), name = h.querySelector(".project-name");
  const box = h.getBoundingClientRect(), t = title.getBoundingClientRect(), n = name.getBoundingClientRect();
  return {Title: title.textContent, Name: name.textContent, Chosen: pick.options[pick.selectedIndex].textContent,
    TitleFirst: t.left < n.left || t.top < n.top,
    OutOfBox: t.right > box.right + 1 || n.right > box.right + 1,
    PickerOut: pick.getBoundingClientRect().right > window.innerWidth + 1,
    PageOverflows: document.documentElement.scrollWidth > window.innerWidth};
})()`

type projectHeading struct {
	Title, Name, Chosen                            string
	TitleFirst, OutOfBox, PickerOut, PageOverflows bool
}

// On a 390 px phone and at a desktop's 1280 px, in Chinese and English,
// the triggers list of one project heads with the project's long Chinese
// title first and its name beside it, and its picker shows the project by
// name and title, none of them leaving its box or widening the page.
func TestAProjectsTitleHeadsItsPageWithinAPhonesWidth(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	const title = "京东商城（所有账号的资产统计、每日签到与京豆兑换，早八点前完成）"
	const file = "project: jd\ntitle: " + title + "\ntasks:\n  - name: checkin\n    script: \"true\"\ntriggers:\n  - name: checkin-daily\n" +
		"    task: checkin\n    cron: '0 8 * * *'\n    timezone: Asia/Shanghai\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Read], "概览"))
	for _, width := range []int64{390, 1280} {
		for _, l := range []string{"zh", "en"} {
			browsertest.Step(t, ctx, "the "+l+" triggers list of jd", chromedp.EmulateViewport(width, 844), chromedp.Navigate(site.base+"/triggers?project=jd&lang="+l),
				browsertest.WaitText("main table", "jd/checkin-daily"))
			got := browsertest.Value(t, ctx, chromedp.Evaluate[projectHeading](projectHeadingShown))
			if got.Title != title || got.Name != "jd" || got.Chosen != "jd · "+title || !got.TitleFirst || got.OutOfBox || got.PickerOut || got.PageOverflows {
				t.Errorf("the %s list at %d px: %+v; want the title first with the name beside it and the picker showing both, nothing overflowing", l, width, got)
			}
			browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("project-title-%s-%d.png", l, width), int(width))
		}
	}
}
