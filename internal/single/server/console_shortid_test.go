package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// shortRunLink is how every table links Run id: its head and tail in
// sight, its middle kept in the page, the whole id in the link and title.
func shortRunLink(id string) string {
	return `<a href="/runs/` + id + `" title="` + id + `" class="run-id"><code class="sid"><span class="sid-head">` + id[:8] + `</span><span class="sid-mid">` +
		id[8:len(id)-4] + `</span>` + id[len(id)-4:] + `</code></a>`
}

// Every table that names a Run — the Runs list, a trigger's timeline, a
// batch's outcomes — shows its id shortened the same way, the whole id in
// the link, its title and the page's text; and the Runs list says, under
// a finished Run's total, how long its attempts themselves ran, in
// English and in Chinese.
func TestEveryTableShortensRunIdsAlikeAndTheRunsListSaysHowLongEachRan(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "echo done")
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.runNow(t, c, csrf)
	waitFor(t, "the Run to finish", 10*time.Second, func() bool {
		d, err := site.srv.store.RunGet(t.Context(), id)
		return err == nil && d.Run.State == run.Succeeded
	})
	for _, path := range []string{"/runs", "/triggers/" + site.triggerID} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil); !strings.Contains(page, shortRunLink(id)) {
			t.Errorf("%s does not link Run %s by its short id:\n%s", path, id, page)
		}
	}
	_, list := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang=en", nil)
	request := regexp.MustCompile(`id="triggers-batch" class="batch"><input type="hidden" name="csrf" value="[^"]*"><input type="hidden" name="request" value="([^"]+)"`).FindStringSubmatch(list)
	if request == nil {
		t.Fatalf("the triggers list has no batch form:\n%s", list)
	}
	resp, outcome := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/batch?lang=en", url.Values{"csrf": {csrf}, "request": {request[1]}, "do": {"run"}, "id": {site.triggerID}})
	made := regexp.MustCompile(`class="batch-runlink run-id" href="/runs/([0-9a-f-]{36})"`).FindStringSubmatch(outcome)
	if resp.StatusCode != http.StatusOK || made == nil ||
		!strings.Contains(outcome, `<a class="batch-runlink run-id" href="/runs/`+made[1]+`" title="`+made[1]+`"><code class="sid"><span class="sid-head">`+made[1][:8]+`</span>`) {
		t.Errorf("a batch's run now: %d, want its Run linked by its short id:\n%s", resp.StatusCode, outcome)
	}
	for lang, want := range map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`<td data-label="Total \(incl. queued\)" class="took">[0-9.]+m?s<br><small class="ran">ran [0-9.]+m?s</small></td>`),
		"zh": regexp.MustCompile(`<td data-label="总用时（含排队）" class="took">[0-9.]+(毫秒|秒)<br><small class="ran">运行 [0-9.]+(毫秒|秒)</small></td>`),
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?state=succeeded&lang="+lang, nil)
		_, row, _ := strings.Cut(page, shortRunLink(id))
		row, _, _ = strings.Cut(row, "</tr>")
		if !want.MatchString(row) {
			t.Errorf("%s: the finished Run's row does not say under its total how long it ran (%s):\n%s", lang, want, row)
		}
	}
}
