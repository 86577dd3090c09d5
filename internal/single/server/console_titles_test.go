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

// The triggers list's search finds a trigger by its title, its task's or
// its project's, in any script and whatever the case, as by its names;
// the page escapes a title as it escapes any text.
func TestTheTriggersSearchMatchesTitlesAndThePageEscapesThem(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(*Config) {})
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	const file = "project: jd\ntitle: Jingdong Mall\ntasks:\n  - name: checkin\n    title: 每日签到\n    script: \"true\"\ntriggers:\n  - name: assets\n" +
		"    title: \"资产统计 <script>alert(1)</script>\"\n    task: checkin\n    cron: '0 8 * * *'\n    timezone: Asia/Shanghai\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply: %d\n%s", resp.StatusCode, page)
	}
	for q, found := range map[string]bool{"资产": true, "签到": true, "jingdong": true, "JD/ASSETS": true, "天气": false} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?"+url.Values{"q": {q}}.Encode(), nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(page, "jd/assets</a>") != found {
			t.Errorf("search %q: %d, lists jd/assets %t; want %t", q, resp.StatusCode, !found, found)
		}
		if found && (strings.Contains(page, "<script>alert(1)") || !strings.Contains(page, `<bdi class="obj-title">资产统计 &lt;script&gt;alert(1)&lt;/script&gt;</bdi>`)) {
			t.Errorf("search %q: the title is not shown escaped:\n%s", q, page)
		}
	}
}
