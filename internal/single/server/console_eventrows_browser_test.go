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
// while the Run waits for the server's only slot lists its events so far,
// created and queued; once the Run starts, the events of its start appear
// below them, in Chinese and at times in the browser's zone, without the
// page loading again (a mark set on it stays), and a stored payload opened
// meanwhile stays open. The server's side is
// TestALiveLogSendsTheEventsRowsAsTheRunGoesOn.
func TestARunPageOpenedWhileItsRunWaitsListsItsNewEventsWithoutLoadingAgain(t *testing.T) {
	ctx := browsertest.Start(t)
	release := filepath.Join(t.TempDir(), "release")
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		heldSlotScript(release), func(c *Config) { c.Concurrency = 1 })
	names := func() string {
		return browsertest.Value(t, ctx, chromedp.Evaluate[string](
			`Array.prototype.map.call(document.querySelectorAll("#events .event-name"), function (n) { return n.textContent; }).join(" ")`))
	}
	browsertest.Step(t, ctx, "sign in, in Shanghai", browsertest.TimeZone("Asia/Shanghai"), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	runNow := func(what string) string {
		browsertest.Step(t, ctx, what, chromedp.Navigate(site.base+"/triggers/"+site.triggerID),
			chromedp.WaitVisible(chromedp.ID("runnow")), chromedp.Click(chromedp.ID("runnow")), chromedp.WaitVisible(chromedp.ID("events")))
		loc := browsertest.Value(t, ctx, chromedp.Location())
		return loc[strings.LastIndex(loc, "/")+1:]
	}
	first := runNow("run now, the Run taking the only slot")
	browsertest.Step(t, ctx, "see it run", browsertest.WaitText("#log", "started"))
	runNow("run now again, the Run waiting")
	if got := names(); got != "已创建 已排队" {
		t.Fatalf("the waiting Run's page lists the events %q; want 已创建 已排队", got)
	}
	browsertest.Step(t, ctx, "open the first event's stored payload", chromedp.Click(chromedp.CSS("#events tr:first-child summary")))
	browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered = true"))

	c := consoleClient(t)
	site.cancel(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]), first)
	browsertest.Step(t, ctx, "the Run's start is listed", browsertest.WaitText("#events", "尝试已启动"))
	if got := names(); got != "已创建 已排队 运行中 尝试已启动" {
		t.Fatalf("once the Run started its page lists the events %q; want 已创建 已排队 运行中 尝试已启动", got)
	}
	at := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.querySelector("#events tr:last-child td:last-child").textContent`))
	facts := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.querySelector("#events tr:last-child .event-facts").textContent`))
	if !strings.HasSuffix(at, " CST") || !strings.Contains(facts, "进程号") {
		t.Fatalf("the attempt's start is listed at %q, saying %q; want a time in Shanghai (CST) and its process (进程号)", at, facts)
	}
	if !browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered === true")) {
		t.Fatal("the page was loaded again to list the Run's new events; want its rows added over the live stream")
	}
	if !browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#events tr:first-child details").open`)) {
		t.Fatal("the first event's stored payload, opened before the new events came, is closed; want the rows that read the same left as they were")
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, ctx, "the Run ends", browsertest.WaitText("#run-state", "成功"))
}
