package server

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser at phone size, the Chinese Run page of an attempt
// killed by a signal shows, under the Chinese sentence for its code, the
// attempt's own message, in Chinese, as text on the page (a phone has no
// hover to read a title); a message of a thousand characters shows its first words and
// the whole of it on a tap, and the page does not scroll sideways.
func TestConsoleInABrowserShowsAFailedAttemptsMessageOnTheChineseRunPage(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, `kill -9 $$`)
	b := site.base
	dir := browsertest.ArtifactDir(t)
	message := "命令被信号 9（SIGKILL）终止"

	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	browsertest.Step(t, ctx, "run the command that is killed and see its message", chromedp.Navigate(b+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("runnow")),
		chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("run-state")),
		browsertest.WaitText("#run-state", "失败"),
		browsertest.WaitText("main table.cards", "命令被一个并非青龙发送的信号终止"),
		chromedp.WaitVisible(chromedp.CSS(".attempt-message")),
		browsertest.WaitText(".attempt-message", message))
	runURL := browsertest.Value(t, ctx, chromedp.Location())
	browsertest.Screenshot(t, ctx, dir, "run-failed-zh-390x844.png", 390)

	long := "the worker refused the command: " + strings.Repeat("the grant's digest differs from the recorded one; ", 20) + "END"
	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE attempts SET error_message = ? WHERE error_code = 'killed_by_signal'`, long); err != nil {
		t.Fatal(err)
	}
	browsertest.Step(t, ctx, "a long message shows its first words", chromedp.Navigate(runURL),
		browsertest.WaitText(".attempt-message", "the worker refused the command: the grant's digest"))
	if folded := browsertest.Value(t, ctx, chromedp.Text(chromedp.CSS(".attempt-message"))); strings.Contains(folded, "END") || len(folded) > len(long)/2 {
		t.Fatalf("the folded message shows %q; want its first words only", folded)
	}
	browsertest.Screenshot(t, ctx, dir, "run-failed-long-zh-390x844.png", 390)
	browsertest.Step(t, ctx, "a tap shows it whole", chromedp.Click(chromedp.CSS(".attempt-message summary")),
		browsertest.WaitText(".attempt-message", "recorded one; END"))
	browsertest.Screenshot(t, ctx, dir, "run-failed-long-open-zh-390x844.png", 390)
}

// In a real browser, at phone size and on a desktop, an attempt's number
// on a Run's page, a one-digit link to that attempt's output, is a target
// of at least 24×24 CSS px, which a thumb hits, and still reads as the
// number alone.
func TestAnAttemptsNumberIsATargetOfAtLeast24PxSquare(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, `echo done`)
	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(site.base+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"))
	browsertest.Step(t, ctx, "run now and see the Run end", chromedp.Navigate(site.base+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("runnow")), chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("run-state")), browsertest.WaitText("#run-state", "succeeded"))
	dir := browsertest.ArtifactDir(t)
	for _, width := range []int64{390, 1280} {
		browsertest.Step(t, ctx, fmt.Sprintf("the Run's page %d px wide", width), chromedp.EmulateViewport(width, 844),
			chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("a.attempt-log")))
		size := browsertest.Value(t, ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector("a.attempt-log").getBoundingClientRect();
			return [r.width, r.height] })()`))
		if text := browsertest.Value(t, ctx, chromedp.Text(chromedp.CSS("a.attempt-log"))); text != "1" || size[0] < 24 || size[1] < 24 {
			t.Errorf("%d px wide: the attempt's number reads %q in a %.0f×%.0f px target; want 1 in at least 24×24", width, text, size[0], size[1])
		}
		browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("run-attempt-number-%d.png", width), int(width))
	}
}
