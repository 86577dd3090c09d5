package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser: on a yearly trigger's page, fill the backfill form's
// start, preview the window (its occurrences, first and last), confirm,
// follow the result's link to the trigger's Runs and see each backfilled
// Run there, run to its end, each one's Took on one line; the preview and
// the result fit a phone. A reversed window is refused on the Chinese page
// in Chinese.
func TestConsoleBackfillInABrowserPreviewsConfirmsAndShowsTheRuns(t *testing.T) {
	ctx := browsertest.Start(t)
	site := backfillSite(t, yearly)
	b := site.base
	want := newYears(2024)
	dir := browsertest.ArtifactDir(t)

	browsertest.Step(t, ctx, "sign in, in Shanghai", browsertest.TimeZone("Asia/Shanghai"), chromedp.Navigate(b+"/signin?lang=en"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "Overview"))
	browsertest.Step(t, ctx, "fill the backfill form's start and preview", chromedp.Navigate(b+"/triggers/"+site.triggerID),
		chromedp.WaitVisible(chromedp.ID("backfill-from")),
		chromedp.SetValue(chromedp.ID("backfill-from"), "2023-06-01T00:00"),
		chromedp.Click(chromedp.ID("backfill-preview-btn")),
		browsertest.WaitText("#backfill-preview", "What the backfill would do"),
		browsertest.WaitText("#backfill-count", strconv.Itoa(len(want))),
		browsertest.WaitText("#backfill-first", "2024-01-01 03:00:00 UTC+08:00"),
		browsertest.WaitText("#backfill-last", want[len(want)-1].Format("2006-01-02")+" 03:00:00 UTC+08:00"),
		browsertest.WaitText("#backfill-confirm", "Create "+strconv.Itoa(len(want))+" Runs"))
	browsertest.Step(t, ctx, "the preview at phone size", chromedp.EmulateViewport(390, 844))
	browsertest.Screenshot(t, ctx, dir, "backfill-preview-390x844.png", 390)

	browsertest.Step(t, ctx, "confirm", chromedp.Click(chromedp.ID("backfill-confirm")),
		browsertest.WaitText("#backfill-done", "Backfill done"),
		browsertest.WaitText("#backfill-new", strconv.Itoa(len(want))))
	browsertest.Screenshot(t, ctx, dir, "backfill-done-390x844.png", 390)
	links := browsertest.Value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#backfill-runs a")].map(a => a.textContent)`))
	if len(links) != len(want) {
		t.Fatalf("the result links %d runs %v, want %d", len(links), links, len(want))
	}

	browsertest.Step(t, ctx, "see the runs among the trigger's, each run to its end", chromedp.EmulateViewport(1280, 900),
		chromedp.Click(chromedp.ID("backfill-allruns")),
		browsertest.WaitText("main h1", "Runs"),
		reloadUntil("every backfilled run listed as succeeded", func(table string) bool {
			for _, id := range links {
				if !strings.Contains(table, id) {
					return false
				}
			}
			return strings.Count(table, "succeeded") == len(want)
		}))
	// A narrow table squeezes its columns, but how long a Run took, and
	// under it how long its attempts ran, are each read as one word: each
	// keeps its digits and unit on one line.
	browsertest.Step(t, ctx, "a narrower window", chromedp.EmulateViewport(660, 900))
	if split := browsertest.Value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('td[data-label="Total (incl. queued)"]')].flatMap(td => [...td.childNodes].filter(n => n.nodeName !== "BR")).filter(n => {
		const r = document.createRange(); r.selectNodeContents(n); return new Set([...r.getClientRects()].map(c => Math.round(c.top))).size > 1 }).map(n => n.textContent)`)); len(split) > 0 {
		t.Errorf("the Took column breaks %v over lines", split)
	}

	browsertest.Step(t, ctx, "a reversed window is refused in Chinese", chromedp.Navigate(b+"/triggers/"+site.triggerID+"?lang=zh"),
		chromedp.WaitVisible(chromedp.ID("backfill-from")),
		chromedp.SetValue(chromedp.ID("backfill-from"), "2025-06-01T00:00"),
		chromedp.SetValue(chromedp.ID("backfill-to"), "2024-06-01T00:00"),
		chromedp.Click(chromedp.ID("backfill-preview-btn")),
		browsertest.WaitText("#backfill-error", "回填窗口的起始时间晚于截止时间"))
	browsertest.Screenshot(t, ctx, dir, "backfill-refused-zh.png", 1280)
}

// reloadUntil reloads the page until the text content of its table
// satisfies cond: its text content, since a shortened Run id lays its
// middle out apart from its ends, which the rendered text then splits.
func reloadUntil(what string, cond func(table string) bool) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for {
			text, err := chromedp.TextContent(chromedp.CSS("main table"))(ctx, tg)
			if err == nil && cond(text) {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("%s: never (last %q, %v): %w", what, text, err, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
			if _, err := chromedp.Reload()(ctx, tg); err != nil {
				return chromedp.Void{}, err
			}
		}
	}
}
