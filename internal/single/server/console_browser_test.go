package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser against a standalone server on SQLite: sign in with a
// token, see the overview, pause a trigger with a note and resume it, run
// it now and watch its output arrive live on the run page, cancel the
// running Run, re-run it, see the next fires in the browser's zone, use the console at phone size without horizontal
// scrolling, sign out, and be sent to sign-in without a session.
func TestConsoleInABrowserSignsInOperatesAndSignsOut(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	b := site.base
	trig := b + "/triggers/" + site.triggerID

	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(b+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), site.tokens[apitoken.Operate]),
		chromedp.Click(chromedp.ID("signin")),
		browsertest.WaitText("main h1", "Overview"),
		browsertest.WaitText("main", "Next fires"))

	browsertest.Step(t, ctx, "pause with a note", chromedp.Navigate(trig),
		chromedp.WaitVisible(chromedp.ID("note")),
		chromedp.SendKeys(chromedp.ID("note"), "holiday freeze"),
		chromedp.Click(chromedp.ID("pause")),
		browsertest.WaitText("#pause-state", "paused — holiday freeze"))
	browsertest.Step(t, ctx, "resume", chromedp.Click(chromedp.ID("resume")), browsertest.WaitText("#pause-state", "active"))

	browsertest.Step(t, ctx, "run now and watch the log live", chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("log")),
		browsertest.WaitText("#log", "line 3\n"))
	if runURL := browsertest.Value(t, ctx, chromedp.Location()); !strings.Contains(runURL, "/runs/") {
		t.Fatalf("run now led to %s, want the run's page", runURL)
	}
	browsertest.Step(t, ctx, "cancel the running run", chromedp.WaitVisible(chromedp.ID("cancel")),
		chromedp.Click(chromedp.ID("cancel")),
		browsertest.WaitText("#run-state", "cancelled"))
	browsertest.Step(t, ctx, "re-run the cancelled run, then cancel the re-run", chromedp.WaitVisible(chromedp.ID("rerun")),
		chromedp.Click(chromedp.ID("rerun")),
		chromedp.WaitVisible(chromedp.ID("rerun-of")),
		chromedp.WaitVisible(chromedp.ID("cancel")),
		chromedp.Click(chromedp.ID("cancel")),
		browsertest.WaitText("#run-state", "cancelled"))

	dir := browsertest.ArtifactDir(t)
	for _, p := range []struct{ path, want, file string }{
		{"/runs", "cancelled", "runs-390x844.png"},
		{"/?lang=zh", "概览", "overview-zh-390x844.png"},
		{"/triggers/" + site.triggerID, "nightly", "trigger-390x844.png"},
		{"/triggers?lang=en", "Next 5 fires", "triggers-390x844.png"},
	} {
		browsertest.Step(t, ctx, "open "+p.path+" at phone size", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+p.path), browsertest.WaitText("main", p.want))
		browsertest.Screenshot(t, ctx, dir, p.file, 390)
	}
	t.Logf("screenshots in %s", dir)

	browsertest.Step(t, ctx, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("token")))
	browsertest.Step(t, ctx, "refused without a session", chromedp.Navigate(b+"/runs"), chromedp.WaitVisible(chromedp.ID("token")))
	if loc := browsertest.Value(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/signin") {
		t.Fatalf("without a session /runs led to %s, want /signin", loc)
	}
}
