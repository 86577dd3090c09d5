package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// backTo is where Back led the browser: its address, the page's text, and
// whether the page holds each element of ids.
type backTo struct {
	URL, Text string
	Has       map[string]bool
}

func pageAfterBack(t *testing.T, ctx context.Context, ids ...string) backTo {
	t.Helper()
	list, err := json.Marshal(ids)
	if err != nil {
		t.Fatal(err)
	}
	return browsertest.Value(t, ctx, chromedp.Evaluate[backTo](`(() => { const has = {};
		for (const id of `+string(list)+`) { has[id] = document.getElementById(id) !== null; }
		return {URL: location.href, Text: document.body ? document.body.innerText : "", Has: has}; })()`))
}

// goBack presses the browser's Back and waits, at most 15 s, for the
// element sel of the page it should show. With the browser's back/forward
// cache off (a page it restored would be no proof) the page is loaded
// again: a page the browser would not load without sending a form
// again is its error page (net::ERR_CACHE_MISS, "Confirm Form
// Resubmission"), which has no such element.
func goBack(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wait, chromedp.Evaluate[chromedp.Void](`setTimeout(() => history.back(), 0)`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(wait, chromedp.WaitReady(sel)); err != nil {
		t.Errorf("Back shows no %s: %v", sel, err)
	}
}

// createTokenThenGoBack creates a token named name on the tokens page of
// the console at base, goes on to the overview and presses Back to the
// tokens page; it returns the secret the page showed.
func createTokenThenGoBack(t *testing.T, ctx context.Context, base, name string) string {
	t.Helper()
	browsertest.Step(t, ctx, "create a token", chromedp.Navigate(base+"/tokens"), chromedp.WaitVisible(chromedp.ID("tok-name")),
		chromedp.SendKeys(chromedp.ID("tok-name"), name), chromedp.Click(chromedp.ID("tok-create")), chromedp.WaitVisible(chromedp.ID("new-token")))
	secret := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("new-token").textContent`))
	browsertest.Step(t, ctx, "go on to the overview", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("nav-tokens")))
	goBack(t, ctx, "#tok-shown-once")
	return secret
}

// In a real browser on a 390 px phone, in Chinese: after a form that
// succeeded (a new token, a batch pause), going on to another page and
// pressing Back shows a page, never the browser's "Confirm Form
// Resubmission" (ERR_CACHE_MISS), and sends nothing again: Back to the new
// token's page says its secret was shown once and does not show it, and
// Back to the batch's page shows the triggers list.
func TestAFormThatSucceedsRedirectsSoBackDoesNotResubmit(t *testing.T) {
	ctx := browsertest.Start(t, browsertest.NoBackForwardCache)
	site := startSecretsSite(t, nil)
	browsertest.Step(t, ctx, "sign in on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	secret := createTokenThenGoBack(t, ctx, site.base, "walk-back")
	back := pageAfterBack(t, ctx, "tok-shown-once", "new-token")
	if !strings.HasPrefix(back.URL, site.base+"/tokens?") || strings.Contains(back.Text, "ERR_CACHE_MISS") || !back.Has["tok-shown-once"] || back.Has["new-token"] ||
		strings.Contains(back.Text, secret) {
		t.Fatalf("Back after creating a token led to %s, not the tokens page saying its secret was shown once:\n%s", back.URL, back.Text)
	}

	browsertest.Step(t, ctx, "pause the trigger from the list's batch form", chromedp.Navigate(site.base+"/triggers"),
		chromedp.Click(chromedp.CSS(`input.batch-pick[value="`+site.triggerID+`"]`)), chromedp.Click(chromedp.ID("batch-pause")), chromedp.WaitVisible(chromedp.ID("batch-outcomes")))
	browsertest.Step(t, ctx, "open the trigger", chromedp.Click(chromedp.CSS(`#batch-outcomes a`)), chromedp.WaitVisible(chromedp.ID("pause-state")))
	goBack(t, ctx, "#trigger-"+site.triggerID)
	back = pageAfterBack(t, ctx, "trigger-"+site.triggerID, "batch-outcomes")
	if !strings.HasPrefix(back.URL, site.base+"/triggers?") || strings.Contains(back.Text, "ERR_CACHE_MISS") || !back.Has["trigger-"+site.triggerID] || back.Has["batch-outcomes"] {
		t.Fatalf("Back after a batch pause led to %s, not the triggers list:\n%s", back.URL, back.Text)
	}
	browsertest.Screenshot(t, ctx, browsertest.ArtifactDir(t), "back-after-batch-zh-390.png", 390)

	// A form of two steps: its preview is shown by a GET as well, so Back
	// from the applied page passes over two pages, neither sending the file.
	browsertest.Step(t, ctx, "edit the schedule, preview and apply it", chromedp.Navigate(site.base+"/definitions/schedule?project=shop&trigger=nightly"),
		chromedp.SetValue(chromedp.ID("es-cron"), "0 0 4 1 1 *"), chromedp.Click(chromedp.ID("es-preview")),
		chromedp.Click(chromedp.ID("def-confirm")), chromedp.WaitVisible(chromedp.ID("def-applied")))
	browsertest.Step(t, ctx, "go on to the overview", chromedp.Navigate(site.base+"/"), chromedp.WaitVisible(chromedp.ID("nav-tokens")))
	for _, step := range []string{"the applied page", "the preview"} {
		goBack(t, ctx, "#def-yaml")
		if back = pageAfterBack(t, ctx, "def-yaml"); !strings.HasPrefix(back.URL, site.base+"/definitions?") || !back.Has["def-yaml"] {
			t.Fatalf("Back to %s led to %s, not the definitions page:\n%s", step, back.URL, back.Text)
		}
	}
}

// With the browser's back/forward cache on, as a phone's browser has it,
// Back to the page that showed a new token's secret does not show the
// secret again: the page's script loads it once more, and the server's
// page says the secret was shown once.
func TestBackToANewTokensPageDoesNotShowItsSecretAgain(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startSecretsSite(t, nil)
	browsertest.Step(t, ctx, "sign in on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(site.base+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "Overview"))
	secret := createTokenThenGoBack(t, ctx, site.base, "walk-cache")
	if back := pageAfterBack(t, ctx, "new-token"); back.Has["new-token"] || strings.Contains(back.Text, secret) {
		t.Fatalf("Back to the new token's page at %s shows its secret again:\n%s", back.URL, back.Text)
	}
}

// On a 390 px phone page in Chinese, with the page's script off as with
// it on, a trigger's Disable opens its question and nothing else: the
// trigger stays enabled until the question's own button is pressed, and
// the open question fits the screen (nothing scrolls sideways). After it,
// the page says at its top what was done.
func TestTheQuestionBeforeADisableWorksWithoutScriptsOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startSecretsSite(t, nil)
	browsertest.Step(t, ctx, "sign in on a phone, scripts off", chromedp.EmulateViewport(390, 844), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"), browsertest.Scripts(false))
	browsertest.Step(t, ctx, "tap Disable", chromedp.Navigate(site.base+"/triggers/"+site.triggerID), chromedp.Click(chromedp.ID("disable-ask")),
		chromedp.WaitVisible(chromedp.ID("disable")))
	fits := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= document.documentElement.clientWidth`))
	browsertest.Screenshot(t, ctx, browsertest.ArtifactDir(t), "disable-question-zh-390.png", 390)
	if !fits {
		t.Error("the open question before a disable scrolls the phone's page sideways")
	}
	if state := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("pause-state").textContent`)); strings.Contains(state, "已停用") {
		t.Fatalf("one tap disabled the trigger: %q", state)
	}
	browsertest.Step(t, ctx, "confirm", chromedp.Click(chromedp.ID("disable")), browsertest.WaitText("#flash", "已停用 shop/"))
}
