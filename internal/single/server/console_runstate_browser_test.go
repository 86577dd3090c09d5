package server

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on a Chinese page, a Run's page opened while the Run
// waits for the server's only slot says it is queued, and once the Run
// starts says, in Chinese, that it runs, above its output: the line
// changes in place over the live stream, the page is not loaded again (a
// mark set on it stays); the Run's end still reloads it into its final
// state. The server's side is TestALiveLogSaysInThePagesLanguageWhenItsQueuedRunStarts.
func TestARunPageOpenedWhileItsRunWaitsSaysItRunsWithoutLoadingAgain(t *testing.T) {
	p := openWaitingRunPage(t)
	state := func() (string, string) {
		return browsertest.Value(t, p.ctx, chromedp.Text(chromedp.ID("run-state"))),
			browsertest.Value(t, p.ctx, chromedp.Evaluate[string](`document.getElementById("run-state").getAttribute("data-state")`))
	}
	if text, data := state(); text != "排队中" || data != "queued" {
		t.Fatalf("the second Run's page says %q (data-state %q) beside the Run holding the slot; want 排队中, queued", text, data)
	}

	p.start(t)
	browsertest.Step(t, p.ctx, "the Run starts and its output arrives", browsertest.WaitText("#log", "started"))
	// The stream says the state ahead of the output it brings.
	if text, data := state(); text != "运行中" || data != "running" {
		t.Fatalf("with the Run's output shown the page says %q (data-state %q); want 运行中, running", text, data)
	}
	if p.loadedAgain(t) {
		t.Fatal("the page was loaded again to say the Run runs; want the line changed over its live stream")
	}

	p.end(t)
	if !p.loadedAgain(t) {
		t.Fatal("the Run ended and the page was not loaded again; want its end to show its attempts and exit code")
	}
}
