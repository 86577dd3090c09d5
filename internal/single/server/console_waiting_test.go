package server

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A queued Run's page on a server whose every slot holds a Run says, in
// English and in Chinese, that the server already runs as many commands as
// its --concurrency allows, with both numbers, and that queued Runs start
// in the order they were queued, and that its attempt waits to start; the
// API's answer for the Run gives the reason with them; the Run holding the
// slot says nothing.
func TestTheRunPageSaysInEnglishAndChineseThatTheServerRunsAsManyCommandsAsItsConcurrencyAllows(t *testing.T) {
	t.Parallel()
	b := startBusyConsole(t)
	site, c, csrf, first, second, detail := b.site, b.c, b.csrf, b.first, b.second, b.detail
	if d := detail(second); d.Run.State != run.Queued || d.Waiting == nil || d.Waiting.Reason != run.WaitServerBusy ||
		d.Waiting.Running != 1 || d.Waiting.Concurrency != 1 {
		t.Fatalf("the API's second Run: %s, waiting %+v; want queued, %s with 1 of 1", d.Run.State, d.Waiting, run.WaitServerBusy)
	}
	for lang, want := range map[string]string{
		"en": "It waits its turn: 1 of 1 command running, as many as the server's --concurrency allows; as it finishes it starts the Run queued first, this one in its turn.",
		"zh": "它在排队等候：1/1 个命令正在运行，已达服务器 --concurrency 允许的上限；每有一个结束，就启动最早排队的运行，轮到此运行时即启动。",
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+second+"?lang="+lang, nil)
		if !strings.Contains(page, `data-reason="server_busy"`) || !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the queued Run's page in %s does not say %q:\n%s", lang, want, page)
		}
		// Its attempt, stored claimed, waits as the Run does.
		if attempt := map[string]string{"en": "waiting to start", "zh": "等待启动"}[lang]; !strings.Contains(page, `class="attempt-state">`+attempt+`</td>`) {
			t.Errorf("the queued Run's attempt in %s does not say %q:\n%s", lang, attempt, page)
		}
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+first, nil); strings.Contains(page, `id="run-waiting"`) {
		t.Errorf("the running Run's page says why it waits:\n%s", page)
	}
	for _, id := range []string{second, first} {
		httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+id+"/cancel", url.Values{"csrf": {csrf}})
	}
}

// busyConsole is a console site of one slot: first is the Run holding it,
// second the Run queued behind it, c a client signed in with an operate
// token (csrf its form token), and detail reads a Run over the API.
type busyConsole struct {
	site          *consoleSite
	c             *http.Client
	csrf          string
	first, second string
	detail        func(id string) view.RunDetail
}

func startBusyConsole(t *testing.T) busyConsole {
	t.Helper()
	cron := trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	b := busyConsole{site: startConsoleSiteConfigured(t, cron, slowScript, func(c *Config) { c.Concurrency = 1 }), c: consoleClient(t)}
	b.csrf = b.site.signIn(t, b.c, b.site.tokens[apitoken.Operate])
	runNow := func() string {
		resp, _ := httpcall.Form(t, b.c, http.MethodPost, b.site.base+"/triggers/"+b.site.triggerID+"/run", url.Values{"csrf": {b.csrf}})
		id := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
		if resp.StatusCode != http.StatusSeeOther || id == "" {
			t.Fatalf("run now: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		return id
	}
	b.detail = func(id string) view.RunDetail {
		status, body, _ := httpcall.Bearer(t, http.MethodGet, b.site.base+"/api/v1/runs/"+id, b.site.tokens[apitoken.Read], nil)
		var d view.RunDetail
		if status != http.StatusOK || json.Unmarshal(body, &d) != nil {
			t.Fatalf("GET /api/v1/runs/%s: %d %s", id, status, body)
		}
		return d
	}
	b.first = runNow()
	waitFor(t, "the first Run to run", 10*time.Second, func() bool { return b.detail(b.first).Run.State == run.Running })
	b.second = runNow()
	return b
}
