package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser in Shanghai, on a Chinese page, a Run's page opened
// while the Run waits for the server's only slot says under its facts why
// it waits and no start; once the Run starts, the facts say, in Chinese,
// when it started (in the browser's zone) and no longer why it waits,
// without the page loading again (a mark set on it stays). The fact then
// reads as the server renders it: the page loaded at the Run's end shows
// the same start. The server's side is
// TestALiveLogSendsTheRunsFactsInThePagesLanguageAndZoneAsTheyChange.
func TestARunPageOpenedWhileItsRunWaitsShowsWhenItStartedWithoutLoadingAgain(t *testing.T) {
	p := openWaitingRunPage(t)
	fact := func(id string) string {
		return browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`(document.getElementById("`+id+`") || {}).textContent || ""`))
	}
	if started, waiting := fact("run-started"), fact("run-waiting"); started != "" || waiting == "" {
		t.Fatalf("the waiting Run's facts say it started %q, waits because %q; want no start and why it waits", started, waiting)
	}

	p.start(t)
	browsertest.Step(t, p.ctx, "the facts say when it started", chromedp.WaitVisible(chromedp.ID("run-started")))
	live := fact("run-started")
	title := browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`document.getElementById("run-started").previousElementSibling.textContent`))
	if !strings.HasSuffix(live, " UTC+08:00") || title != "启动时间" || fact("run-waiting") != "" {
		t.Fatalf("the started Run's facts say %s %q, waits because %q; want 启动时间 and a time in Shanghai (UTC+08:00), no reason to wait", title, live, fact("run-waiting"))
	}
	if p.loadedAgain(t) {
		t.Fatal("the page was loaded again to show when the Run started; want its facts changed over the live stream")
	}

	p.end(t)
	if rendered := fact("run-started"); rendered != live {
		t.Fatalf("the page loaded at the Run's end says the Run started %q, the live facts said %q; want the same", rendered, live)
	}
}
