package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// unknownZone is a zone Chromium knows (an old alias its zone data keeps)
// and the server's does not: a browser's zone newer, or older, than the
// server's zone database.
const unknownZone = "SystemV/AST4"

// In a real browser the console's script shows the pages in the browser's
// zone (ql_tz), and when the browser moves to a zone the server does not
// know, it keeps the zone the pages were shown in (ql_tz_prev): the page
// names the refused zone in its language and shows its times in the zone
// before it, not UTC, and the script does not set the refused zone again
// or load the page once more on every page that follows. A page whose
// address asks for another zone (?tz=) changes neither cookie.
func TestTheZoneScriptKeepsThePreviousZoneWhenTheBrowsersIsUnknown(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	cookie := func(name string) string {
		for _, c := range strings.Split(browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.cookie`)), "; ") {
			if v, ok := strings.CutPrefix(c, name+"="); ok {
				return v
			}
		}
		return ""
	}
	browsertest.Step(t, ctx, "sign in from New York", browsertest.TimeZone("America/New_York"), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Read], "概览"))
	browsertest.Step(t, ctx, "see the runs in New York time", chromedp.Navigate(site.base+"/runs"),
		browsertest.WaitText("main p.help", "时区 America/New_York"))
	if tz, prev := cookie("ql_tz"), cookie("ql_tz_prev"); tz != "America/New_York" || prev != "" {
		t.Fatalf("in New York the script set ql_tz=%q, ql_tz_prev=%q; want America/New_York and none before it", tz, prev)
	}

	browsertest.Step(t, ctx, "move the browser to a zone the server does not know", browsertest.TimeZone(unknownZone),
		chromedp.Navigate(site.base+"/runs"),
		browsertest.WaitText("#zone-refused", "此服务器不认识时区“"+unknownZone+"”"))
	if said := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("zone-refused"))); !strings.Contains(said, "时间仍按 America/New_York 显示") {
		t.Errorf("the page says %q; want the times kept in America/New_York", said)
	}
	if shown := browsertest.Value(t, ctx, chromedp.Text(chromedp.CSS("main p.help"))); shown != "时区 America/New_York" {
		t.Errorf("the runs page shows its times in %q; want America/New_York, the zone before the refused one", shown)
	}
	if tz, prev := cookie("ql_tz"), cookie("ql_tz_prev"); tz != unknownZone || prev != "America/New_York" {
		t.Fatalf("after the move the script set ql_tz=%q, ql_tz_prev=%q; want %s and America/New_York", tz, prev, unknownZone)
	}

	browsertest.Step(t, ctx, "open a page whose address asks for Berlin time", chromedp.Navigate(site.base+"/runs?tz=Europe/Berlin"),
		browsertest.WaitText("main p.help", "时区 Europe/Berlin"), chromedp.Sleep(time.Second))
	if tz, prev := cookie("ql_tz"), cookie("ql_tz_prev"); tz != unknownZone || prev != "America/New_York" {
		t.Errorf("a page in Berlin time by its address left ql_tz=%q, ql_tz_prev=%q; want them as they were: Berlin is not the browser's zone", tz, prev)
	}

	browsertest.Step(t, ctx, "open another page", chromedp.Navigate(site.base+"/triggers"),
		browsertest.WaitText("#zone-refused", unknownZone), chromedp.Sleep(time.Second))
	if said := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("zone-refused"))); !strings.Contains(said, "时间仍按 America/New_York 显示") {
		t.Errorf("the next page says %q; want its times still in America/New_York", said)
	}
	if how := browsertest.Value(t, ctx, chromedp.Evaluate[string](`performance.getEntriesByType("navigation")[0].type`)); how != "navigate" {
		t.Errorf("the next page was loaded by %q; want it shown once, not loaded again by the script", how)
	}
	if tz, prev := cookie("ql_tz"), cookie("ql_tz_prev"); tz != unknownZone || prev != "America/New_York" {
		t.Errorf("on the next page the cookies are ql_tz=%q, ql_tz_prev=%q; want them as they were", tz, prev)
	}
}
