// Package browsertest drives Debian's Chromium from Go tests (through
// chromedp) for the web console's browser tests on every profile.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian's chromium package puts the browser
// (.ci/run installs it).
const ChromiumPath = "/usr/bin/chromium"

// Start starts a headless Chromium for one test and returns its context,
// bounded to a minute, with the options given after the kit's own. Without
// the browser the test fails under CI and is skipped elsewhere, naming
// what to install.
func Start(t *testing.T, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: CI must install the chromium package for the browser tests", ChromiumPath)
		}
		t.Skipf("%s is missing; install Debian's chromium package to run the browser tests", ChromiumPath)
	}
	// Chromium makes a directory for its single-instance socket in its
	// TMPDIR and removes it only when it exits by itself, which it never
	// does here: the test's context ends, so the browser is killed. So
	// its TMPDIR is one of the test's, removed once the browser is gone;
	// not t.TempDir(), whose path, named after the test, can be too long
	// for the socket's address.
	tmp, err := os.MkdirTemp("", "chromium")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(ChromiumPath), chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 900), chromedp.Env("TMPDIR="+tmp))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	opts = append(opts, more...)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(func() {
		cancel()
		cancelCtx()
		cancelAlloc() // returns once the browser has exited
		if err := os.RemoveAll(tmp); err != nil {
			t.Errorf("remove the browser's temporary directory: %v", err)
		}
	})
	return ctx
}

// NoBackForwardCache turns the browser's back/forward cache off, so that
// Back loads its page again as a browser does once that cache has let the
// page go (or never kept it): what Back shows is then the server's answer.
var NoBackForwardCache = chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,BackForwardCache")

// ArtifactDir is where screenshots go: $QL_TEST_ARTIFACTS/console when
// set (CI keeps it), else the test's temporary directory.
func ArtifactDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if root := os.Getenv("QL_TEST_ARTIFACTS"); root != "" {
		dir = filepath.Join(root, "console")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Step runs actions in the browser and fails the test with the page's
// address and text when one fails.
func Step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		// The step's context may be over: read the page under a short
		// bound of its own, so a dead browser cannot hang the report.
		diag, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		loc, _ := chromedp.Run(diag, chromedp.Location())
		body, _ := chromedp.Run(diag, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v (at %s:\n%s)", what, err, loc, body)
	}
}

// Value runs one action and returns its value, failing the test on error.
func Value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Scripts turns the page's scripts on or off, from the next page loaded on:
// a test sees what a browser without JavaScript (or before its script has
// run) is shown.
func Scripts(on bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
		return err
	})
}

// TimeZone sets the zone the browser is in (the zone its Intl API
// reports), as its operating system would: a test can move the browser to
// another zone between two pages.
func TimeZone(zone string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	})
}

// ColorScheme makes the browser's system ask for scheme ("dark",
// "light") through prefers-color-scheme, as a phone in dark mode does;
// "" gives the browser's own back.
func ColorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		p := emulation.SetEmulatedMediaParams{}
		if scheme != "" {
			p.Features = []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p)
		return err
	})
}

// OpenMenu opens the header's menu where the screen is narrow enough to
// fold its links behind a button, as a finger does, so that a header link
// can be clicked next; on a wider screen, where the links are in sight,
// it does nothing.
func OpenMenu() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		folded, err := chromedp.Evaluate[bool](`(() => { const d = document.getElementById("menu"), s = document.getElementById("menu-open");
 return !!d && !d.open && s.getClientRects().length > 0; })()`)(ctx, tg)
		if err != nil || !folded {
			return chromedp.Void{}, err
		}
		return chromedp.Click(chromedp.ID("menu-open"))(ctx, tg)
	}
}

// WaitText waits until the element sel's text contains want. A read that
// fails because the page is being replaced (a form's redirect) is tried
// again.
func WaitText(sel, want string) chromedp.Action[chromedp.Void] {
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

// Screenshot saves the page as dir/name (PNG) and fails the test when the
// page is wider than width: a table that scrolls sideways on a phone.
func Screenshot(t *testing.T, ctx context.Context, dir, name string, width int) {
	t.Helper()
	if w := Value(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > width {
		t.Errorf("%s: the page is %d px wide on a %d px screen: it scrolls sideways", name, w, width)
	}
	if err := os.WriteFile(filepath.Join(dir, name), Value(t, ctx, chromedp.CaptureScreenshot()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SignInWithToken signs in on the sign-in page the browser shows, with an
// API token, and waits for the page it lands on to show heading in its
// main heading (the Overview, in the page's language, or the page the
// browser was on its way to when it was sent to sign in).
func SignInWithToken(token, heading string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for _, a := range []chromedp.Action[chromedp.Void]{
			chromedp.WaitVisible(chromedp.ID("token")),
			chromedp.SendKeys(chromedp.ID("token"), token),
			chromedp.Click(chromedp.ID("signin")),
			WaitText("main h1", heading),
		} {
			if _, err := a(ctx, tg); err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	}
}
