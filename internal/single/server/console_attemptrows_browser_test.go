package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser in Shanghai, on a Chinese page, a Run's page opened
// while the Run waits for the server's only slot shows its attempt waiting
// to start, with no start time and nothing to download; once the Run
// starts, the attempt's row says, in Chinese, that it runs, when it
// started (in the browser's zone) and offers its log so far, without the
// page loading again (a mark set on it stays). The row then reads as the
// server renders it: the page loaded at the Run's end shows the same start.
// The server's side is
// TestALiveLogSendsTheAttemptsRowsInThePagesLanguageAndZoneAsTheyChange.
func TestARunPageOpenedWhileItsRunWaitsShowsItsAttemptRunningWithoutLoadingAgain(t *testing.T) {
	ctx := browsertest.Start(t)
	release := filepath.Join(t.TempDir(), "release")
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		heldSlotScript(release), func(c *Config) { c.Concurrency = 1 })
	cell := func(class string) string {
		return browsertest.Value(t, ctx, chromedp.Evaluate[string](`(document.querySelector("#attempts td.`+class+`") || {}).textContent || ""`))
	}
	browsertest.Step(t, ctx, "sign in, in Shanghai", browsertest.TimeZone("Asia/Shanghai"), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	runNow := func(what string) string {
		browsertest.Step(t, ctx, what, chromedp.Navigate(site.base+"/triggers/"+site.triggerID),
			chromedp.WaitVisible(chromedp.ID("runnow")), chromedp.Click(chromedp.ID("runnow")), chromedp.WaitVisible(chromedp.ID("attempts")))
		loc := browsertest.Value(t, ctx, chromedp.Location())
		return loc[strings.LastIndex(loc, "/")+1:]
	}
	first := runNow("run now, the Run taking the only slot")
	browsertest.Step(t, ctx, "see it run", browsertest.WaitText("#log", "started"))
	second := runNow("run now again, the Run waiting")
	if st, at, dl := cell("attempt-state"), cell("attempt-started"), cell("attempt-download"); st != "等待启动" || at != "—" || dl != "—" {
		t.Fatalf("the waiting Run's attempt says %q, started %q, log %q; want 等待启动, —, —", st, at, dl)
	}
	browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered = true"))

	c := consoleClient(t)
	site.cancel(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]), first)
	browsertest.Step(t, ctx, "the attempt runs", browsertest.WaitText("#attempts td.attempt-state", "运行中"),
		browsertest.WaitText("#attempts td.attempt-download", "下载日志（截至目前）"))
	live := cell("attempt-started")
	href := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.querySelector("#attempts a.log-download").getAttribute("href")`))
	if !strings.HasSuffix(live, " CST") || href != "/runs/"+second+"/download?attempt=1" {
		t.Fatalf("the running attempt started %q, its log so far at %q; want a time in Shanghai (CST) and /runs/%s/download?attempt=1", live, href, second)
	}
	if !browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered === true")) {
		t.Fatal("the page was loaded again to show the attempt running; want its row changed over the live stream")
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, ctx, "the Run ends", browsertest.WaitText("#run-state", "成功"))
	if rendered := cell("attempt-started"); rendered != live {
		t.Fatalf("the page loaded at the Run's end says the attempt started %q, the live row said %q; want the same", rendered, live)
	}
}
