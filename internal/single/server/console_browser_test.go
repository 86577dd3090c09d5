package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// chromiumPath is where Debian's chromium package puts the browser
// (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

// browser starts a headless Chromium for one test. Without it the test
// fails under CI and is skipped elsewhere, naming what to install.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: CI must install the chromium package for the browser tests", chromiumPath)
		}
		t.Skipf("%s is missing; install Debian's chromium package to run the browser tests", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath), chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// artifactDir is where screenshots go: $QL_TEST_ARTIFACTS/console when
// set (CI keeps it), else the test's temporary directory.
func artifactDir(t *testing.T) string {
	dir := t.TempDir()
	if root := os.Getenv("QL_TEST_ARTIFACTS"); root != "" {
		dir = filepath.Join(root, "console")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// step runs actions in the browser and fails the test with the page's
// address and text when one fails.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		loc, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Location())
		body, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v (at %s:\n%s)", what, err, loc, body)
	}
}

func value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitText waits until the element sel's text contains want. A read that
// fails because the page is being replaced (a form's redirect) is tried
// again.
func waitText(sel, want string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var last string
		for {
			got, err := chromedp.Text(chromedp.CSS(sel))(ctx, tg)
			if err == nil && strings.Contains(got, want) {
				return chromedp.Void{}, nil
			}
			last = got
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("%s never showed %q (last %q, %v): %w", sel, want, last, err, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// In a real browser against a standalone server on SQLite: sign in with a
// token, see the overview, pause a trigger with a note and resume it, run
// it now and watch its output arrive live on the run page, cancel the
// running Run, use the console at phone size without horizontal
// scrolling, sign out, and be sent to sign-in without a session.
func TestConsoleInABrowserSignsInOperatesAndSignsOut(t *testing.T) {
	ctx := browser(t)
	site := startConsoleSite(t)
	b := site.base
	trig := b + "/triggers/" + site.triggerID

	step(t, ctx, "sign in", chromedp.Navigate(b+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), site.tokens[apitoken.Operate]),
		chromedp.Click(chromedp.ID("signin")),
		waitText("main h1", "Overview"),
		waitText("main", "Next fires"))

	step(t, ctx, "pause with a note", chromedp.Navigate(trig),
		chromedp.WaitVisible(chromedp.ID("note")),
		chromedp.SendKeys(chromedp.ID("note"), "holiday freeze"),
		chromedp.Click(chromedp.ID("pause")),
		waitText("#pause-state", "paused — holiday freeze"))
	step(t, ctx, "resume", chromedp.Click(chromedp.ID("resume")), waitText("#pause-state", "active"))

	step(t, ctx, "run now and watch the log live", chromedp.Click(chromedp.ID("runnow")),
		chromedp.WaitVisible(chromedp.ID("log")),
		waitText("#log", "line 3\n"))
	if runURL := value(t, ctx, chromedp.Location()); !strings.Contains(runURL, "/runs/") {
		t.Fatalf("run now led to %s, want the run's page", runURL)
	}
	step(t, ctx, "cancel the running run", chromedp.WaitVisible(chromedp.ID("cancel")),
		chromedp.Click(chromedp.ID("cancel")),
		waitText("#run-state", "cancelled"))

	dir := artifactDir(t)
	for _, p := range []struct{ path, want, file string }{
		{"/runs", "cancelled", "runs-390x844.png"},
		{"/?lang=zh", "概览", "overview-zh-390x844.png"},
		{"/triggers/" + site.triggerID, "nightly", "trigger-390x844.png"},
	} {
		step(t, ctx, "open "+p.path+" at phone size", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+p.path), waitText("main", p.want))
		if width := value(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); width > 390 {
			t.Errorf("%s is %d px wide on a 390 px screen: it scrolls sideways", p.path, width)
		}
		if err := os.WriteFile(filepath.Join(dir, p.file), value(t, ctx, chromedp.CaptureScreenshot()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)

	step(t, ctx, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("token")))
	step(t, ctx, "refused without a session", chromedp.Navigate(b+"/runs"), chromedp.WaitVisible(chromedp.ID("token")))
	if loc := value(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/signin") {
		t.Fatalf("without a session /runs led to %s, want /signin", loc)
	}
}
