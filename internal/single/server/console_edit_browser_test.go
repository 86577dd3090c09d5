package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on a phone, in Chinese: from a trigger's page, open
// Edit task, change the script, preview, confirm, and find the task
// running the new script; the form, its script box and the preview fit
// the phone.
func TestConsoleEditTaskInABrowserChangesTheScript(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	b := site.base
	dir := browsertest.ArtifactDir(t)

	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	browsertest.Step(t, ctx, "open the form from the trigger's page", chromedp.Navigate(b+"/triggers/"+site.triggerID),
		chromedp.Click(chromedp.ID("edit-task")),
		browsertest.WaitText("main h1", "编辑任务 shop/report"))
	if shown := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("et-script").value`)); shown != slowScript {
		t.Fatalf("the form's script box holds %q, want the task's script as it is", shown)
	}
	// Nothing of the form is wider than the phone: the script box and
	// the fields wrap or scroll inside it.
	if wide := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); wide > 390 {
		t.Errorf("the form is %d px wide on a 390 px phone", wide)
	}
	browsertest.Screenshot(t, ctx, dir, "edittask-form-390x844.png", 390)
	browsertest.Step(t, ctx, "change the script and preview",
		chromedp.SetValue(chromedp.ID("et-script"), "echo 改过的脚本\necho 第二行"),
		chromedp.SendKeys(chromedp.ID("et-timeout"), "10m"),
		chromedp.Click(chromedp.ID("et-preview")),
		browsertest.WaitText("#def-preview", "应用后将发生的变更"),
		browsertest.WaitText("#def-preview", "nightly"))
	browsertest.Screenshot(t, ctx, dir, "edittask-preview-390x844.png", 390)
	browsertest.Step(t, ctx, "confirm", chromedp.Click(chromedp.ID("def-confirm")),
		browsertest.WaitText("#def-applied", "已应用"))
	spec := taskSpec(t, site, "report")
	if spec.Command.Script != "echo 改过的脚本\necho 第二行" || spec.Command.TimeoutMs != 600_000 {
		t.Errorf("task report after the browser's edit: script %q, timeout %d ms; want the two lines typed, with LF line breaks, and 10m", spec.Command.Script, spec.Command.TimeoutMs)
	}
	browsertest.Step(t, ctx, "the form shows the new script", chromedp.Navigate(b+"/triggers/"+site.triggerID),
		chromedp.Click(chromedp.ID("edit-task")),
		browsertest.WaitText("main h1", "编辑任务"))
	if shown := browsertest.Value(t, ctx, chromedp.Evaluate[string](`document.getElementById("et-script").value`)); shown != "echo 改过的脚本\necho 第二行" {
		t.Errorf("the form opened again holds %q, want the new script", shown)
	}
}
