package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser in Shanghai, on a Chinese page, a Run's page opened
// while the Run waits for the server's only slot lists its events so far,
// created and queued; once the Run starts, the events of its start appear
// below them, in Chinese and at times in the browser's zone, without the
// page loading again (a mark set on it stays), and a stored payload opened
// meanwhile stays open. The server's side is
// TestALiveLogSendsTheEventsRowsAsTheRunGoesOn.
func TestARunPageOpenedWhileItsRunWaitsListsItsNewEventsWithoutLoadingAgain(t *testing.T) {
	p := openWaitingRunPage(t)
	names := func() string {
		return browsertest.Value(t, p.ctx, chromedp.Evaluate[string](
			`Array.prototype.map.call(document.querySelectorAll("#events .event-name"), function (n) { return n.textContent; }).join(" ")`))
	}
	if got := names(); got != "已创建 已排队" {
		t.Fatalf("the waiting Run's page lists the events %q; want 已创建 已排队", got)
	}
	browsertest.Step(t, p.ctx, "open the first event's stored payload", chromedp.Click(chromedp.CSS("#events tr:first-child summary")))

	p.start(t)
	browsertest.Step(t, p.ctx, "the Run's start is listed", browsertest.WaitText("#events", "尝试已启动"))
	if got := names(); got != "已创建 已排队 运行中 尝试已启动" {
		t.Fatalf("once the Run started its page lists the events %q; want 已创建 已排队 运行中 尝试已启动", got)
	}
	at := browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`document.querySelector("#events tr:last-child td:last-child").textContent`))
	facts := browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`document.querySelector("#events tr:last-child .event-facts").textContent`))
	if !strings.HasSuffix(at, " UTC+08:00") || !strings.Contains(facts, "进程号") {
		t.Fatalf("the attempt's start is listed at %q, saying %q; want a time in Shanghai (UTC+08:00) and its process (进程号)", at, facts)
	}
	if p.loadedAgain(t) {
		t.Fatal("the page was loaded again to list the Run's new events; want its rows added over the live stream")
	}
	if !browsertest.Value(t, p.ctx, chromedp.Evaluate[bool](`document.querySelector("#events tr:first-child details").open`)) {
		t.Fatal("the first event's stored payload, opened before the new events came, is closed; want the rows that read the same left as they were")
	}

	p.end(t)
}
