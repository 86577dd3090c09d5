package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In Chromium, the cron field of the New task form and of the Edit
// schedule form is set in the script box's monospace font, not the page's
// proportional one.
func TestTheCronFieldsAreMonospaceLikeTheScriptBox(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	font := func(id string) string {
		return browsertest.Value(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("`+id+`")).fontFamily`))
	}
	browsertest.Step(t, ctx, "sign in as an admin", chromedp.Navigate(site.base+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "Overview"))
	browsertest.Step(t, ctx, "open New task", chromedp.Navigate(site.base+"/definitions/new?lang=en"), chromedp.WaitVisible(chromedp.ID("nt-cron")))
	script, body := font("nt-script"), browsertest.Value(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).fontFamily`))
	if !strings.Contains(script, "monospace") || strings.Contains(body, "monospace") {
		t.Fatalf("the script box is in %q and the page in %q; want a monospace box on a proportional page", script, body)
	}
	if got := font("nt-cron"); got != script {
		t.Errorf("New task's cron field is in %q; want the script box's %q", got, script)
	}
	browsertest.Step(t, ctx, "open Edit schedule", chromedp.Navigate(site.base+"/definitions/schedule?project=shop&trigger=nightly&lang=en"),
		chromedp.WaitVisible(chromedp.ID("es-cron")))
	if got := font("es-cron"); got != script {
		t.Errorf("Edit schedule's cron field is in %q; want the script box's %q", got, script)
	}
}
