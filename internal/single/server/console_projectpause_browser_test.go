package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser on a phone (390 px), on Chinese pages: the triggers
// list of one project pauses the project with a note, says since when,
// by whom and why it is paused, and resumes it, and neither the forms nor
// the answer make the page scroll sideways.
func TestTheTriggersListPausesAndResumesItsProjectInABrowserInChineseOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	b := site.base
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	browsertest.Step(t, ctx, "the project's list offers its pause", chromedp.Navigate(b+"/triggers?project=shop"),
		chromedp.WaitVisible(chromedp.ID("project-pause")))
	browsertest.Screenshot(t, ctx, dir, "project-pause-zh-390x844.png", 390)
	browsertest.Step(t, ctx, "pause the project with a note", chromedp.SendKeys(chromedp.ID("project-pause-note"), "发布前冻结"),
		chromedp.Click(chromedp.ID("project-pause")), browsertest.WaitText("#project-done", "项目已暂停，随之暂停 1 个触发器。"),
		browsertest.WaitText("td.trigger-state", "随项目暂停"), browsertest.WaitText("#project-paused", "暂停：发布前冻结"))
	browsertest.Screenshot(t, ctx, dir, "project-paused-zh-390x844.png", 390)
	browsertest.Step(t, ctx, "resume the project", chromedp.Click(chromedp.ID("project-resume")),
		browsertest.WaitText("#project-done", "项目已恢复，随之恢复 1 个触发器"))
	browsertest.Screenshot(t, ctx, dir, "project-resumed-zh-390x844.png", 390)
}

// In a real browser on a phone (390 px), on a Chinese trigger page: a
// pause note past its 1,000 characters (set as a paste into a field
// without the page's limit would) is answered with the page again, the
// note kept in its field and the error beside it, without the page
// scrolling sideways.
func TestARefusedPauseNoteStaysInItsFieldInABrowserInChineseOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	b := site.base
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	browsertest.Step(t, ctx, "the trigger's page offers its pause", chromedp.Navigate(b+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("note")))
	browsertest.Value(t, ctx, chromedp.Evaluate[int](`(() => { const n = document.getElementById("note"); n.removeAttribute("maxlength"); n.value = "停".repeat(1001); return n.value.length; })()`))
	browsertest.Step(t, ctx, "pause with the note too long", chromedp.Click(chromedp.ID("pause")),
		browsertest.WaitText("#pause-error", "备注过长"))
	if kept := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.getElementById("note").value.length`)); kept != 1001 {
		t.Fatalf("the note field holds %d characters after the refusal; want the 1001 typed", kept)
	}
	browsertest.Screenshot(t, ctx, dir, "pause-note-refused-zh-390x844.png", 390)
}
