package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// timesOnOneLine finds every date and time in the page's main part and
// names those a line break cuts (their text spans two lines), with how
// many it found.
const timesOnOneLine = `(() => {
  const re = /\d{4}-\d\d-\d\d[ \u00a0]\d\d:\d\d:\d\d(\.\d+)?[ \u00a0][A-Za-z0-9+\-:]+/g;
  const out = {Found: 0, Due: 0, Cut: []};
  const walk = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (/due|到期/.test(n.data)) { out.Due++; }
    for (const m of n.data.matchAll(re)) {
      out.Found++;
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      if (new Set([...r.getClientRects()].map(c => Math.round(c.top))).size > 1) { out.Cut.push(m[0]); }
    }
  }
  return out;
})()`

// On a phone (390×844) in Chromium, the next fire times of a jittered
// trigger, each read "nominal (due …)" in the viewer's zone (and on the
// overview in the trigger's too), wrap between the times and the words,
// never inside a date and time, and the page does not scroll sideways: on the trigger's page
// and on the overview, in English and in Chinese.
func TestAJitteredTriggersFireTimesWrapOnAPhoneBetweenTimesNotInsideOne(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 * * *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce, JitterMs: time.Hour.Milliseconds()},
		"true", func(*Config) {})
	site.waitForCursor(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a phone in Los Angeles", chromedp.EmulateViewport(390, 844), browsertest.TimeZone("America/Los_Angeles"),
		chromedp.Navigate(site.base+"/signin?lang=en"), browsertest.SignInWithToken(site.tokens[apitoken.Read], "Overview"))
	for _, l := range []string{"en", "zh"} {
		for name, path := range map[string]string{"trigger": "/triggers/" + site.triggerID, "overview": "/"} {
			browsertest.Step(t, ctx, "open the "+l+" "+name+" page", chromedp.Navigate(site.base+path+"?lang="+l),
				browsertest.WaitText("main", "UTC-0"))
			got := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
				Found, Due int
				Cut        []string
			}](timesOnOneLine))
			if got.Due == 0 || got.Found < 4 || len(got.Cut) > 0 {
				t.Errorf("the %s %s page at 390 px: %d times, %d with a due time, these cut by a line break: %q; want every time on one line", l, name, got.Found, got.Due, got.Cut)
			}
			browsertest.Screenshot(t, ctx, dir, name+"-due-"+l+"-390x844.png", 390)
		}
	}
}

// On a narrow phone (320×568) in Chromium, a trigger's fire times without
// jitter sit on one line each, never cut inside a date and time or between
// a time and its offset: on the trigger's page, the triggers list and the
// overview, in English and in Chinese.
func TestAFireTimeWithoutJitterDoesNotWrapOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	site.waitForCursor(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in on a narrow phone in Los Angeles", chromedp.EmulateViewport(320, 568), browsertest.TimeZone("America/Los_Angeles"),
		chromedp.Navigate(site.base+"/signin?lang=en"), browsertest.SignInWithToken(site.tokens[apitoken.Read], "Overview"))
	for _, l := range []string{"en", "zh"} {
		for name, path := range map[string]string{"trigger": "/triggers/" + site.triggerID, "triggers": "/triggers", "overview": "/"} {
			browsertest.Step(t, ctx, "open the "+l+" "+name+" page", chromedp.Navigate(site.base+path+"?lang="+l),
				browsertest.WaitText("main", "UTC-0"))
			got := browsertest.Value(t, ctx, chromedp.Evaluate[struct {
				Found, Due int
				Cut        []string
			}](timesOnOneLine))
			if got.Found < 5 && name != "overview" || got.Found == 0 || len(got.Cut) > 0 {
				t.Errorf("the %s %s page at 320 px: %d times, these cut by a line break: %q; want every time on one line", l, name, got.Found, got.Cut)
			}
			browsertest.Screenshot(t, ctx, dir, name+"-fires-"+l+"-320x568.png", 320)
		}
	}
}

// waitForCursor waits for the schedule's first round to set the site's
// trigger's cursor, its next fire and due time, which the pages show.
func (s *consoleSite) waitForCursor(t *testing.T) {
	t.Helper()
	waitFor(t, "the schedule to set the trigger's cursor", 10*time.Second, func() bool {
		status, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/triggers/"+s.triggerID, s.tokens[apitoken.Read], nil)
		var d struct {
			Trigger struct{ NextFireAtMs, NextDueAtMs *int64 }
		}
		return status == http.StatusOK && json.Unmarshal(body, &d) == nil && d.Trigger.NextFireAtMs != nil && d.Trigger.NextDueAtMs != nil
	})
}
