package server

import (
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A trigger whose Runs queue while another trigger's Run holds the
// server's one slot is flagged, in English and Chinese, as a backlog
// queued behind that trigger's Runs, on the triggers list and on its page.
func TestTheConsoleNamesTheTriggerABacklogIsQueuedBehind(t *testing.T) {
	t.Parallel()
	var bravo string
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) {
			c.Concurrency = 1
			bravo = publishEveryMinuteTick(t, c.DataDir, "bravo").TriggerID
		})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	page := func(path string) string {
		t.Helper()
		_, body := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		return html.UnescapeString(body)
	}
	first := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, first)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(page("/runs/"+first+"?lang=en"), "state-running") {
		if time.Now().After(deadline) {
			t.Fatal("shop/nightly's Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 10 {
		site.runNowOverAPI(t, bravo)
	}
	for path, want := range map[string]string{
		"/triggers?lang=en":               "Runs queued behind the Runs of shop/nightly (1), which hold the slots. Pause that trigger (Pause, on its page); or, to give them more slots, raise the server's <code><span class=\"nowrap\">--concurrency</span></code>.",
		"/triggers?lang=zh":               "个运行正在排队，排在占用槽位的 shop/nightly (1) 的运行之后。请暂停该触发器（在它的页面上点“暂停”）；或为它们增加槽位：调高服务器的 <code><span class=\"nowrap\">--concurrency</span></code>。",
		"/triggers/" + bravo + "?lang=en": `id="warning-trig.warn.backlog.behind" role="alert">Backlog: `,
	} {
		if body := page(path); !strings.Contains(body, want) {
			t.Errorf("%s does not say %q:\n%s", path, want, body)
		}
	}
}
