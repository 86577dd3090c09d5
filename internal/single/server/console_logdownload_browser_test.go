package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, a Run page's Download log link saves the attempt's
// whole log as a file named after its project, trigger, Run and attempt,
// holding the log's bytes exactly as stored: over 64 KiB, its bytes of no
// UTF-8 character and its control characters as they are, none replaced.
func TestARunPagesDownloadLogLinkSavesTheStoredLogInABrowser(t *testing.T) {
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, longScript)
	c := consoleClient(t)
	id := site.endedRun(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]))
	stored, err := os.ReadFile(site.attemptLog(t, id))
	if err != nil {
		t.Fatal(err)
	}

	ctx := browsertest.Start(t)
	dir := t.TempDir()
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Read], "Overview"))
	begun := chromedp.Events(ctx, browser.DownloadWillBegin)
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	on := true
	browsertest.Step(t, ctx, "click Download log", chromedp.Navigate(site.base+"/runs/"+id),
		chromedp.WaitVisible(chromedp.CSS("a.log-download")),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &on})
			return err
		}),
		chromedp.Click(chromedp.CSS("a.log-download")))
	name := "shop-nightly-" + id + "-attempt-1.log"
	for ev, err := range begun {
		if err != nil {
			t.Fatalf("no download began: %v", err)
		}
		if ev.SuggestedFilename != name {
			t.Errorf("the browser saves the log as %q, want %q", ev.SuggestedFilename, name)
		}
		break
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("the download never completed: %v", err)
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatal("the browser says the download failed")
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			break
		}
	}
	saved, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("the downloaded file: %v", err)
	}
	if !bytes.Equal(saved, stored) {
		t.Fatalf("the browser saved %d bytes, the store holds %d: the download is not the log as stored", len(saved), len(stored))
	}
}
