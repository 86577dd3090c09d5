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

// In a real browser, on a Chinese page, a Run's page opened while the Run
// waits for the server's only slot says it is queued, and once the Run
// starts says, in Chinese, that it runs, above its output: the line
// changes in place over the live stream, the page is not loaded again (a
// mark set on it stays); the Run's end still reloads it into its final
// state. The server's side is TestALiveLogSaysInThePagesLanguageWhenItsQueuedRunStarts.
func TestARunPageOpenedWhileItsRunWaitsSaysItRunsWithoutLoadingAgain(t *testing.T) {
	ctx := browsertest.Start(t)
	release := filepath.Join(t.TempDir(), "release")
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		heldSlotScript(release), func(c *Config) { c.Concurrency = 1 })
	state := func() (string, string) {
		return browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("run-state"))),
			browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("run-state").getAttribute("data-state")`))
	}
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	runNow := func(what string) string {
		browsertest.Step(t, ctx, what, chromedp.Navigate(site.base+"/triggers/"+site.triggerID),
			chromedp.WaitVisible(chromedp.ID("runnow")), chromedp.Click(chromedp.ID("runnow")), chromedp.WaitVisible(chromedp.ID("run-state")))
		loc := browsertest.Value(t, ctx, chromedp.Location())
		return loc[strings.LastIndex(loc, "/")+1:]
	}
	first := runNow("run now, the Run taking the only slot")
	browsertest.Step(t, ctx, "see it run", browsertest.WaitText("#log", "started"))
	runNow("run now again, the Run waiting")
	if text, data := state(); text != "排队中" || data != "queued" {
		t.Fatalf("the second Run's page says %q (data-state %q) beside the Run holding the slot; want 排队中, queued", text, data)
	}
	browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered = true"))

	c := consoleClient(t)
	site.cancel(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]), first)
	browsertest.Step(t, ctx, "the Run starts and its output arrives", browsertest.WaitText("#log", "started"))
	// The stream says the state ahead of the output it brings.
	if text, data := state(); text != "运行中" || data != "running" {
		t.Fatalf("with the Run's output shown the page says %q (data-state %q); want 运行中, running", text, data)
	}
	if !browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered === true")) {
		t.Fatal("the page was loaded again to say the Run runs; want the line changed over its live stream")
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, ctx, "the Run ends", browsertest.WaitText("#run-state", "成功"))
	if browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered === true")) {
		t.Fatal("the Run ended and the page was not loaded again; want its end to show its attempts and exit code")
	}
}
