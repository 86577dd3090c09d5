package server

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// brokenAcrossLines names the elements of the page that sel finds whose
// text a line break parts (their boxes lie on more than one line), with
// how many it found.
func brokenAcrossLines(sel string) string {
	return `(() => {
  const out = {Found: 0, Broken: []};
  for (const e of document.querySelectorAll(` + fmt.Sprintf("%q", sel) + `)) {
    out.Found++;
    if (new Set([...e.getClientRects()].map(r => Math.round(r.top))).size > 1) { out.Broken.push(e.textContent); }
  }
  return out;
})()`
}

// wrapSite is a console site whose trigger nightly is jittered, beside
// the project shop-orders-eu, whose trigger nightly-backup-of-orders runs
// every two seconds in America/New_York on a six-field cron; it returns
// once that trigger has a Run that finished.
func wrapSite(t *testing.T) (*consoleSite, string) {
	t.Helper()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 * * *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce, JitterMs: time.Hour.Milliseconds()},
		"true", func(*Config) {})
	site.waitForCursor(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	const file = "project: shop-orders-eu\ntasks:\n  - name: export-orders\n    script: \"true\"\ntriggers:\n  - name: nightly-backup-of-orders\n" +
		"    task: export-orders\n    cron: '*/2 * * * * *'\n    timezone: America/New_York\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	var run string
	waitFor(t, "a finished Run of nightly-backup-of-orders", 20*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?project=shop-orders-eu&state=succeeded", nil)
		m := regexp.MustCompile(`href="/runs/([0-9a-f-]{36})"`).FindStringSubmatch(page)
		if m != nil {
			run = m[1]
		}
		return m != nil
	})
	return site, run
}

// In Chromium at a desktop's 1280 px, in English and Chinese, the
// triggers list keeps each trigger's zone, cron expression, name (between
// its hyphens too, beside the batch's checkbox an operator's list shows)
// and last Run's time on one line, its fires (with their offset, in a
// viewer's zone east of UTC) and last Run taking only the width of their
// longest time; the Chinese sign-in page keeps --owner whole in its help.
func TestTheTriggersListKeepsZonesCronsNamesAndTimesWholeAtADesktopsWidth(t *testing.T) {
	ctx := browsertest.Start(t)
	site, _ := wrapSite(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "the Chinese sign-in page at 1280 px", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.base+"/signin?lang=zh"),
		chromedp.WaitVisible(chromedp.ID("token")))
	flags := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
		Found  int
		Broken []string
	}](brokenAcrossLines("p.help code .nowrap")))
	if flags.Found < 3 || len(flags.Broken) > 0 {
		t.Errorf("the Chinese sign-in page's help: %d flags, these broken across lines: %q", flags.Found, flags.Broken)
	}
	browsertest.Step(t, ctx, "sign in", browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	for _, l := range []string{"en", "zh"} {
		browsertest.Step(t, ctx, "the "+l+" triggers list", chromedp.Navigate(site.base+"/triggers?tz=Asia/Shanghai&lang="+l),
			browsertest.WaitText("main table", "nightly-backup-of-orders"), chromedp.WaitVisible(`td.last-run a`))
		got := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
			Found  int
			Broken []string
		}](brokenAcrossLines("td.schedule code, td.schedule span, a.trigger-name, td.last-run .time, ol.fires .time")))
		if got.Found < 10 || len(got.Broken) > 0 {
			t.Errorf("the %s triggers list at 1280 px: %d zones, crons, names and times, these broken across lines: %q", l, got.Found, got.Broken)
		}
		browsertest.Screenshot(t, ctx, dir, "triggers-"+l+"-1280.png", 1280)
	}
}

// On a 375 px phone in Chromium: a Run's page keeps each time its events
// name (created — scheduled for …) and "Took" with its duration on one
// line, and the Chinese triggers list keeps the words around a jittered
// due time (抖动后, 到期) whole, in English and Chinese.
func TestAPhoneKeepsEventTimesTheDurationAndTheDueWordsWhole(t *testing.T) {
	ctx := browsertest.Start(t)
	site, run := wrapSite(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a phone", chromedp.EmulateViewport(375, 812), chromedp.Navigate(site.base+"/signin"),
		browsertest.SignInWithToken(site.tokens[apitoken.Read], "Overview"))
	for _, l := range []string{"en", "zh"} {
		browsertest.Step(t, ctx, "the "+l+" Run page", chromedp.Navigate(site.base+"/runs/"+run+"?lang="+l), chromedp.WaitVisible(chromedp.ID("run-took")))
		times := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
			Found, Due int
			Cut        []string
		}](timesOnOneLine))
		took := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
			Found  int
			Broken []string
		}](brokenAcrossLines("#run-took, .event-facts .time")))
		if times.Found < 4 || len(times.Cut) > 0 || took.Found < 2 || len(took.Broken) > 0 {
			t.Errorf("the %s Run page at 375 px: %d times, these cut: %q; %d durations and event times, these broken: %q", l, times.Found, times.Cut, took.Found, took.Broken)
		}
		browsertest.Screenshot(t, ctx, dir, "run-"+l+"-375.png", 375)
		browsertest.Step(t, ctx, "the "+l+" triggers list", chromedp.Navigate(site.base+"/triggers?lang="+l), browsertest.WaitText("main table", "shop/nightly"))
		due := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
			Found  int
			Broken []string
		}](brokenAcrossLines("ol.fires .nowrap, ol.fires .time")))
		if due.Found < 10 || len(due.Broken) > 0 {
			t.Errorf("the %s triggers list at 375 px: %d fire times and due words, these broken across lines: %q", l, due.Found, due.Broken)
		}
		browsertest.Screenshot(t, ctx, dir, "triggers-"+l+"-375.png", 375)
	}
}
