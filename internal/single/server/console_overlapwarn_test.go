package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A trigger under overlap allow whose Runs queue behind the server's one
// held slot is flagged as a backlog, with its count, on the triggers list
// and on its own page, in the page's language — and not before its queue
// reaches ten.
func TestTheConsoleFlagsATriggerWithABacklogOfQueuedRunsInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) { c.Concurrency = 1 })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	var runs []string
	defer func() {
		for _, id := range runs {
			site.cancel(t, c, csrf, id)
		}
	}()
	page := func(path string) string {
		t.Helper()
		_, body := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		return body
	}
	runs = append(runs, site.runNow(t, c, csrf))
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(page("/runs/"+runs[0]+"?lang=en"), "state-running") {
		if time.Now().After(deadline) {
			t.Fatal("the first Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 9 {
		runs = append(runs, site.runNow(t, c, csrf))
	}
	if list := page("/triggers?lang=en"); strings.Contains(list, "overlap-warning") {
		t.Fatalf("a queue of nine behind the running Run is flagged:\n%s", list)
	}
	runs = append(runs, site.runNow(t, c, csrf))
	for path, want := range map[string]string{
		"/triggers?lang=en":                        "Backlog: 10 Runs queued.",
		"/triggers?lang=zh":                        "积压：10 个运行正在排队",
		"/triggers/" + site.triggerID + "?lang=en": `id="warning-trig.warn.backlog" role="alert">Backlog: 10 Runs queued.`,
		"/triggers/" + site.triggerID + "?lang=zh": "积压：10 个运行正在排队",
	} {
		if body := page(path); !strings.Contains(body, want) {
			t.Errorf("%s does not say %q:\n%s", path, want, body)
		}
	}
}
