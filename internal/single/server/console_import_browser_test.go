package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on a phone, in Chinese: from Definitions, open
// Import crontab, paste the panel's task list, preview it with each line
// not converted and why, confirm, and find its triggers in the project;
// the form and the preview fit the phone.
func TestConsoleImportInABrowserPublishesAPastedCrontabOnceConfirmed(t *testing.T) {
	ctx, site, dir := adminPhoneInShanghai(t)
	b := site.base
	browsertest.Step(t, ctx, "open the import from Definitions", chromedp.Navigate(b+"/definitions"),
		chromedp.Click(chromedp.ID("def-import")),
		browsertest.WaitText("main h1", "导入 crontab"))
	browsertest.Screenshot(t, ctx, dir, "import-form-390x844.png", 390)
	browsertest.Step(t, ctx, "paste the crontab and preview",
		chromedp.SendKeys(chromedp.ID("imp-project"), "panel"),
		chromedp.SetValue(chromedp.ID("imp-crontab"), panelCrontab),
		chromedp.Click(chromedp.ID("imp-preview")),
		browsertest.WaitText("#def-preview", "应用后将发生的变更"),
		browsertest.WaitText("#imp-lines", "ql repo（青龙面板的订阅）转换为一个任务"))
	browsertest.Screenshot(t, ctx, dir, "import-preview-390x844.png", 390)
	browsertest.Step(t, ctx, "confirm", chromedp.Click(chromedp.ID("def-confirm")),
		browsertest.WaitText("#def-applied", "已应用"))
	browsertest.Step(t, ctx, "the triggers are listed in the project", chromedp.Click(chromedp.ID("def-next")),
		browsertest.WaitText("main table", "panel/jd_bean_sign"),
		browsertest.WaitText("main table", "panel/backup"))
}
