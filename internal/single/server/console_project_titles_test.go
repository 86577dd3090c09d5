package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Every project picker — the Runs, Triggers and Notifications filters,
// the definitions page's and the new task form's — offers a project by
// its name with its display title beside it (escaped as any text), still
// sending the name; and the triggers list filtered by one project, the
// project's page, heads with its title and name, in its browser tab too.
func TestAProjectsTitleIsShownBesideItsNameInEveryPickerAndHeadsItsPage(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	const file = "project: jd\ntitle: \"京东 <b>商城</b>\"\ntasks:\n  - name: checkin\n    script: \"true\"\ntriggers:\n  - name: assets\n" +
		"    task: checkin\n    cron: '0 8 * * *'\n    timezone: Asia/Shanghai\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	const escaped = "京东 &lt;b&gt;商城&lt;/b&gt;"
	for path, want := range map[string]string{
		"/runs?project=jd":          `<option value="jd" selected>jd · ` + escaped + `</option>`,
		"/triggers":                 `<option value="jd">jd · ` + escaped + `</option>`,
		"/notifications?project=jd": `<option value="jd" selected>jd · ` + escaped + `</option>`,
		"/definitions":              `<option value="jd" label="` + escaped + `">`,
		"/definitions/new":          `<option value="jd" label="` + escaped + `">`,
	} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, want) || strings.Contains(page, "<b>商城") {
			t.Errorf("%s: %d; want the picker's choice %s, the title escaped:\n%s", path, resp.StatusCode, want, page)
		}
	}
	for l, tab := range map[string]string{"en": "<title>京东 &lt;b&gt;商城&lt;/b&gt; · jd · Triggers · ", "zh": "<title>京东 &lt;b&gt;商城&lt;/b&gt; · jd · 触发器 · "} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=jd&lang="+l, nil)
		heading := `<h2 id="project-heading"><bdi class="obj-title">` + escaped + `</bdi><span class="title-sep"> · </span><span class="project-name">jd</span></h2>`
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, heading) || !strings.Contains(page, tab) {
			t.Errorf("the %s triggers list of jd: %d; want the heading %s and the tab %s:\n%s", l, resp.StatusCode, heading, tab, page)
		}
	}
}
