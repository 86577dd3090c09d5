package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser on a phone, on Chinese pages: the triggers list's
// script offers "select all on this page"; Run now on all of them runs the
// two enabled triggers, each linked, and refuses the disabled one in
// Chinese; the way back leads to the list, where a pause with one note
// pauses all three; without the script no select-all is offered and a
// box ticked by hand is resumed by the button repeated below the list, so
// a phone need not scroll back up. No page scrolls sideways.
func TestTheTriggersListActsOnSelectedTriggersInABrowserInChineseOnAPhone(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	site.addShopTrigger(t, "backup", true, trigger.OverlapAllow)
	site.addShopTrigger(t, "off", false, trigger.OverlapAllow)
	b := site.base
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))

	browsertest.Step(t, ctx, "the list offers select all", chromedp.Navigate(b+"/triggers"),
		chromedp.WaitVisible(chromedp.ID("batch-all")))
	browsertest.Screenshot(t, ctx, dir, "triggers-batch-zh-390x844.png", 390)
	browsertest.Step(t, ctx, "run all of them now", chromedp.Click(chromedp.ID("batch-all")), chromedp.Click(chromedp.ID("batch-run")),
		browsertest.WaitText("#batch-summary", "已选 3 个；完成 2 个；被拒绝 1 个。"))
	browsertest.Screenshot(t, ctx, dir, "triggers-batch-run-zh-390x844.png", 390)
	if links := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("tr.batch-done a.batch-runlink").length`)); links != 2 {
		t.Errorf("the answer links %d Runs, want 2", links)
	}
	if refused := browsertest.Value(t, ctx, chromedp.Text(chromedp.CSS("tr.batch-refused"))); !strings.Contains(refused, "shop/off") || !strings.Contains(refused, "触发器“off”已停用") {
		t.Errorf("the refused line reads %q; want shop/off refused in Chinese as disabled", refused)
	}

	browsertest.Step(t, ctx, "back to the list and pause all with one note", chromedp.Click(chromedp.ID("batch-back")),
		browsertest.WaitText("main h1", "触发器"), chromedp.WaitVisible(chromedp.ID("batch-all")),
		chromedp.Click(chromedp.ID("batch-all")), chromedp.SendKeys(chromedp.ID("batch-note"), "发布前冻结"), chromedp.Click(chromedp.ID("batch-pause")),
		browsertest.WaitText("#batch-summary", "已选 3 个；完成 3 个；被拒绝 0 个。"))
	if done := browsertest.Value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("tr.batch-done td.batch-said")].map(td => td.textContent)`)); len(done) != 3 || strings.Count(strings.Join(done, "|"), "完成 已暂停。") != 3 {
		t.Errorf("the pause's lines read %q; want three paused", done)
	}
	browsertest.Screenshot(t, ctx, dir, "triggers-batch-pause-zh-390x844.png", 390)

	browsertest.Step(t, ctx, "without the script, tick one box and resume it", browsertest.Scripts(false), chromedp.Navigate(b+"/triggers"),
		chromedp.WaitVisible(chromedp.ID("batch-resume")))
	if hidden := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.getElementById("batch-all-label").hidden`)); !hidden {
		t.Error("without the script the list offers a select-all box that cannot work")
	}
	if below := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.getElementById("batch-resume-bottom").getBoundingClientRect().top >= document.querySelector("table.cards").getBoundingClientRect().bottom`)); !below {
		t.Error("the list's second row of batch buttons is not below the list")
	}
	// Paused with a note, it is left paused until ticked on the answer's
	// own list of such triggers.
	browsertest.Step(t, ctx, "resume one with the button below the list", chromedp.Click(chromedp.CSS(`input.batch-pick[value="`+site.triggerID+`"]`)),
		chromedp.ScrollIntoView(chromedp.ID("batch-resume-bottom")), chromedp.Click(chromedp.ID("batch-resume-bottom")),
		browsertest.WaitText("#batch-summary", "已选 1 个；完成 0 个；被拒绝 0 个。带备注而保持暂停 1 个。"),
		browsertest.WaitText("tr.batch-leftpaused", "shop/nightly"), browsertest.WaitText("tr.batch-leftpaused", "发布前冻结"))
	browsertest.Screenshot(t, ctx, dir, "triggers-batch-noted-zh-390x844.png", 390)
	browsertest.Step(t, ctx, "tick it on the answer's list and resume it", chromedp.Click(chromedp.CSS(`#batch-noted input[value="`+site.triggerID+`"]`)),
		chromedp.Click(chromedp.ID("batch-noted-resume")),
		browsertest.WaitText("#batch-summary", "已选 1 个；完成 1 个；被拒绝 0 个。"),
		browsertest.WaitText("tr.batch-done", "shop/nightly"), browsertest.WaitText("tr.batch-done", "已恢复（带备注暂停，由你勾选）。"))
}
