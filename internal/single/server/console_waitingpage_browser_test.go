package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// waitingRunPage is a Run's page, in Chinese in a browser in Shanghai,
// opened while the Run waits for the server's only slot, which another Run
// of the same trigger holds; the page is marked, so a reload of it shows.
// The tests of a page that keeps up over its live stream start here.
type waitingRunPage struct {
	ctx     context.Context
	site    *consoleSite
	holding string // the Run holding the slot
	waiting string // the Run whose page is open
	release string // the file whose making ends the waiting Run
}

func openWaitingRunPage(t *testing.T) *waitingRunPage {
	t.Helper()
	p := &waitingRunPage{ctx: browsertest.Start(t), release: filepath.Join(t.TempDir(), "release")}
	p.site = startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		heldSlotScript(p.release), func(c *Config) { c.Concurrency = 1 })
	browsertest.Step(t, p.ctx, "sign in, in Shanghai", browsertest.TimeZone("Asia/Shanghai"), chromedp.Navigate(p.site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(p.site.tokens[apitoken.Operate], "概览"))
	runNow := func(what string) string {
		browsertest.Step(t, p.ctx, what, chromedp.Navigate(p.site.base+"/triggers/"+p.site.triggerID),
			chromedp.WaitVisible(chromedp.ID("runnow")), chromedp.Click(chromedp.ID("runnow")), chromedp.WaitVisible(chromedp.ID("run-state")))
		loc := browsertest.Value(t, p.ctx, chromedp.Location())
		return loc[strings.LastIndex(loc, "/")+1:]
	}
	p.holding = runNow("run now, the Run taking the only slot")
	browsertest.Step(t, p.ctx, "see it run", browsertest.WaitText("#log", "started"))
	p.waiting = runNow("run now again, the Run waiting")
	browsertest.Value(t, p.ctx, chromedp.Evaluate[bool]("window.qlRendered = true"))
	return p
}

// start frees the slot (cancelling the Run holding it): the waiting Run
// starts.
func (p *waitingRunPage) start(t *testing.T) {
	t.Helper()
	c := consoleClient(t)
	p.site.cancel(t, c, p.site.signIn(t, c, p.site.tokens[apitoken.Operate]), p.holding)
}

// end lets the Run end and waits for its page to say it succeeded.
func (p *waitingRunPage) end(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(p.release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, p.ctx, "the Run ends", browsertest.WaitText("#run-state", "成功"))
}

// loadedAgain reports whether the page was loaded again since it opened.
func (p *waitingRunPage) loadedAgain(t *testing.T) bool {
	t.Helper()
	return !browsertest.Value(t, p.ctx, chromedp.Evaluate[bool]("window.qlRendered === true"))
}
