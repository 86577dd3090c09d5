package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser in Shanghai, on a Chinese page, a Run's page opened
// while the Run waits for the server's only slot shows its attempt waiting
// to start, with no start time and nothing to download; once the Run
// starts, the attempt's row says, in Chinese, that it runs, when it
// started (in the browser's zone) and offers its log so far, without the
// page loading again (a mark set on it stays). The row then reads as the
// server renders it: the page loaded at the Run's end shows the same start.
// The server's side is
// TestALiveLogSendsTheAttemptsRowsInThePagesLanguageAndZoneAsTheyChange.
func TestARunPageOpenedWhileItsRunWaitsShowsItsAttemptRunningWithoutLoadingAgain(t *testing.T) {
	p := openWaitingRunPage(t)
	cell := func(class string) string {
		return browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`(document.querySelector("#attempts td.`+class+`") || {}).textContent || ""`))
	}
	if st, at, dl := cell("attempt-state"), cell("attempt-started"), cell("attempt-download"); st != "等待启动" || at != "—" || dl != "—" {
		t.Fatalf("the waiting Run's attempt says %q, started %q, log %q; want 等待启动, —, —", st, at, dl)
	}

	p.start(t)
	browsertest.Step(t, p.ctx, "the attempt runs", browsertest.WaitText("#attempts td.attempt-state", "运行中"),
		browsertest.WaitText("#attempts td.attempt-download", "下载日志（截至目前）"))
	live := cell("attempt-started")
	href := browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`document.querySelector("#attempts a.log-download").getAttribute("href")`))
	if !strings.HasSuffix(live, " UTC+08:00") || href != "/runs/"+p.waiting+"/download?attempt=1" {
		t.Fatalf("the running attempt started %q, its log so far at %q; want a time in Shanghai (UTC+08:00) and /runs/%s/download?attempt=1", live, href, p.waiting)
	}
	if p.loadedAgain(t) {
		t.Fatal("the page was loaded again to show the attempt running; want its row changed over the live stream")
	}

	p.end(t)
	if rendered := cell("attempt-started"); rendered != live {
		t.Fatalf("the page loaded at the Run's end says the attempt started %q, the live row said %q; want the same", rendered, live)
	}
}
