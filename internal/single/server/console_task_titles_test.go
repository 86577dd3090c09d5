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

// taskTitleFile is project jd whose shell task checkin has the display
// title title.
func taskTitleFile(title string) string {
	return "project: jd\ntasks:\n  - name: checkin\n    title: \"" + title + "\"\n    script: \"true\"\ntriggers:\n  - name: assets\n" +
		"    task: checkin\n    cron: '0 8 * * *'\n    timezone: Asia/Shanghai\n"
}

// A task's page — its Edit task form — heads with the task's display
// title first and project/task beside it, in the browser's tab too, in
// English and Chinese, and keeps it when the form comes back with an
// error; the definitions page lists the task with its title before its
// name. A title is escaped as any text.
func TestATasksTitleHeadsItsPageAndLeadsItsNameWhereItIsListed(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {taskTitleFile("每日签到 <i>早</i>")}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	const titled = `<bdi class="obj-title">每日签到 &lt;i&gt;早&lt;/i&gt;</bdi><span class="title-sep"> · </span>`
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=jd", nil)
	if link := `<a href="/definitions/task?project=jd&amp;task=checkin">` + titled + `checkin</a>`; resp.StatusCode != http.StatusOK || !strings.Contains(page, link) {
		t.Errorf("the definitions page of jd: %d; want the Edit task link %s:\n%s", resp.StatusCode, link, page)
	}
	for l, words := range map[string]string{"en": "Edit task", "zh": "编辑任务"} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=jd&task=checkin&lang="+l, nil)
		heading := "<h1>" + words + " " + titled + `<span class="task-name">jd/checkin</span></h1>`
		tab := "<title>每日签到 &lt;i&gt;早&lt;/i&gt; · jd/checkin · " + words + " · "
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, heading) || !strings.Contains(page, tab) {
			t.Errorf("the %s Edit task page: %d; want the heading %s and the tab %s:\n%s", l, resp.StatusCode, heading, tab, page)
		}
	}
	form := url.Values{"csrf": {csrf}, "project": {"jd"}, "task": {"checkin"}, "revision": {"1"}, "title": {"每日签到 <i>早</i>"}, "script": {" "}}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task", form); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, titled+`<span class="task-name">jd/checkin</span></h1>`) {
		t.Errorf("the form sent without a script: %d; want it back with the task's title in its heading:\n%s", resp.StatusCode, page)
	}
}

// On a 390 px phone and at a desktop's 1280 px, in Chinese and English,
// the Edit task page's heading shows a long Chinese title first with
// project/task beside it, neither leaving the heading nor widening the
// page.
func TestATasksLongTitleHeadsItsPageWithinAPhonesWidth(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	const title = "京东资产统计与每日签到（所有账号，早八点前完成，失败时重试三次）"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {taskTitleFile(title)}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	const shown = `(() => {
  const h = document.querySelector("main h1"), title = h.querySelector(".obj-title"), name = h.querySelector(".task-name");
  if (!title || !name) { return {Title: "", Name: ""}; }
  const box = h.getBoundingClientRect(), t = title.getBoundingClientRect(), n = name.getBoundingClientRect();
  return {Title: title.textContent, Name: name.textContent, TitleFirst: t.left < n.left || t.top < n.top,
    OutOfBox: t.right > box.right + 1 || n.right > box.right + 1, PageOverflows: document.documentElement.scrollWidth > window.innerWidth};
})()`
	type heading struct {
		Title, Name                         string
		TitleFirst, OutOfBox, PageOverflows bool
	}
	for _, width := range []int64{390, 1280} {
		for _, l := range []string{"zh", "en"} {
			browsertest.Step(t, ctx, "the "+l+" Edit task page", chromedp.EmulateViewport(width, 844), chromedp.Navigate(site.base+"/definitions/task?project=jd&task=checkin&lang="+l),
				chromedp.WaitVisible("#et-script"))
			got := browsertest.Value(t, ctx, chromedp.Evaluate[heading](shown))
			if got.Title != title || got.Name != "jd/checkin" || !got.TitleFirst || got.OutOfBox || got.PageOverflows {
				t.Errorf("the %s Edit task page at %d px: %+v; want the title first with jd/checkin beside it, nothing overflowing", l, width, got)
			}
			browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("task-title-%s-%d.png", l, width), int(width))
		}
	}
}
