package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on a phone, in Chinese: from the triggers page,
// open New task, fill in a task and its schedule, preview, confirm, and
// follow the page's link to find the trigger among its project's triggers
// with its next fires; the form and
// the preview fit the phone, and the preview shows no copy of the file
// to edit.
func TestConsoleNewTaskInABrowserCreatesATriggerFromAForm(t *testing.T) {
	ctx, site, dir := adminPhoneInShanghai(t)
	b := site.base
	browsertest.Step(t, ctx, "open the form from the triggers page", chromedp.Navigate(b+"/triggers"),
		chromedp.Click(chromedp.ID("triggers-newtask")),
		browsertest.WaitText("main h1", "新建任务"))
	browsertest.Step(t, ctx, "fill in the form and preview",
		chromedp.SendKeys(chromedp.ID("nt-project"), "reports"),
		chromedp.SendKeys(chromedp.ID("nt-task"), "daily"),
		chromedp.SendKeys(chromedp.ID("nt-script"), "echo 日报"),
		chromedp.SendKeys(chromedp.ID("nt-cron"), "0 9 * * *"),
		chromedp.SetValue(chromedp.ID("nt-timezone"), "Asia/Shanghai"),
		chromedp.Click(chromedp.ID("nt-preview")),
		browsertest.WaitText("#def-preview", "应用后将发生的变更"))
	browsertest.Screenshot(t, ctx, dir, "newtask-preview-390x844.png", 390)
	// The file the confirmation sends is the one previewed: it is a hidden
	// field, not a box to edit whose changes would be applied unseen.
	if shown := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.querySelector('form[action="/definitions/apply"] textarea[name=yaml]').getClientRects().length`)); shown != 0 {
		t.Errorf("the preview shows the file it applies as a box to edit (%d boxes), want it hidden", shown)
	}
	// A card shows no label over nothing (a change's fields, when it
	// changes none).
	if bare := browsertest.Value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.cards td")].filter(td => td.textContent === "" && td.getClientRects().length > 0).map(td => td.dataset.label)`)); len(bare) > 0 {
		t.Errorf("the preview's cards show labels over nothing: %v", bare)
	}
	browsertest.Step(t, ctx, "confirm", chromedp.Click(chromedp.ID("def-confirm")),
		browsertest.WaitText("#def-applied", "已应用"))
	browsertest.Step(t, ctx, "the trigger is listed with its next fires", chromedp.Click(chromedp.ID("def-next")),
		browsertest.WaitText("main table", "reports/daily"),
		browsertest.WaitText("main table", "09:00:00 UTC+08:00"))
	browsertest.Screenshot(t, ctx, dir, "newtask-triggers-390x844.png", 390)
}
