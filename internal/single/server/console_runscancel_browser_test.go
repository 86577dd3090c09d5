package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// runsIn are the ids of the site's Runs in state, as its API lists them.
func (s *consoleSite) runsIn(t *testing.T, state string) []string {
	t.Helper()
	st, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/runs?state="+state, s.tokens[apitoken.Read], nil)
	var list struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &list) != nil {
		t.Fatalf("list %s Runs: %d %s", state, st, body)
	}
	var out []string
	for _, r := range list.Runs {
		out = append(out, r.ID)
	}
	return out
}

// In a real browser, on Chinese pages: the Runs list offers a box beside
// each Run that has not ended and, with its script, "select all on this
// page"; the cancel asks first, then cancels the ticked Runs and answers
// with the list saying how many were cancelled, how many were asked to
// stop (the running one) and how many had already ended (one cancelled
// behind the page's back meanwhile).
func TestTheRunsListCancelsTickedRunsInABrowserInChinese(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(cfg *Config) { cfg.Concurrency = 1 })
	more := site.addShopTrigger(t, "more", true, trigger.OverlapAllow)
	site.runNowOverAPI(t, site.triggerID)
	site.runNowOverAPI(t, more)
	site.runNowOverAPI(t, more)
	var running, queued []string
	for deadline := time.Now().Add(20 * time.Second); len(running) != 1 || len(queued) != 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20s %d Runs run and %d are queued; want 1 and 2", len(running), len(queued))
		}
		running, queued = site.runsIn(t, "running"), site.runsIn(t, "queued")
	}
	b := site.base
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Operate], "概览"))
	browsertest.Step(t, ctx, "the list offers select all and asks before it cancels", chromedp.Navigate(b+"/runs"),
		chromedp.WaitVisible(chromedp.ID("batch-all")), chromedp.Click(chromedp.ID("batch-all")),
		chromedp.Click(chromedp.ID("runs-cancel-ask")), chromedp.WaitVisible(chromedp.ID("runs-cancel")))
	if boxes := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("input.batch-pick:checked").length`)); boxes != 3 {
		t.Errorf("select all ticked %d boxes; want the three Runs that have not ended", boxes)
	}
	if confirm := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("runs-cancel"))); confirm != "确认取消所勾选的运行" {
		t.Errorf("the confirm button reads %q", confirm)
	}
	browsertest.Screenshot(t, ctx, dir, "runs-cancel-ask-zh-390x844.png", 390)
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, b+"/api/v1/runs/"+queued[0]+"/cancel", site.tokens[apitoken.Operate], nil); st != http.StatusOK {
		t.Fatalf("cancel a queued Run over the API: %d %s", st, body)
	}
	browsertest.Step(t, ctx, "cancel the ticked Runs", chromedp.Click(chromedp.ID("runs-cancel")),
		browsertest.WaitText("#flash", "取消所勾选的 3 个运行：已取消 1 个；已要求停止 1 个（命令停止后即以“已取消”结束）；1 个此前已经结束。"))
	browsertest.Screenshot(t, ctx, dir, "runs-cancel-done-zh-390x844.png", 390)
	if got := site.runsIn(t, "queued"); len(got) != 0 {
		t.Errorf("Runs %v are still queued after the cancel", got)
	}
	if wide := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); wide {
		t.Error("the Runs list scrolls sideways on a phone")
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(strings.Join(site.runsIn(t, "cancelled"), " "), running[0]); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the running Run %s was asked to stop but has not ended cancelled after 20s", running[0])
		}
	}
}
