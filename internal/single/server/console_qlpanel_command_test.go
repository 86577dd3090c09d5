package server

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// panelCommand is a Command cell of the panel import's preview: what it
// shows, and the whole script when that is not it.
var panelCommand = regexp.MustCompile(`(?s)<code class="qlp-command">([^<]*)</code>(?:</summary><pre class="script">([^<]*)</pre>)?`)

// The panel import's Command column shows a subscription's pull task as
// the repository and branch it pulls and a download task as the file it
// downloads, in the page's language, the whole script one click away
// beside it; no cell shows a script's first line of shell upkeep.
func TestThePanelPreviewShowsAPullTaskAsWhatItPulls(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	data := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	for l, want := range map[string][]string{
		"en": {"pulls https://github.com/shufflewzc/faker2.git (branch main)", "downloads https://example.com/raw/sendNotify.js"},
		"zh": {"拉取 https://github.com/shufflewzc/faker2.git（分支 main）", "下载 https://example.com/raw/sendNotify.js"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/preview?lang="+l, panelFields(csrf, data))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the preview in %s: %d:\n%s", l, resp.StatusCode, page)
		}
		wholes := map[string]string{}
		for _, m := range panelCommand.FindAllStringSubmatch(page, -1) {
			shown := html.UnescapeString(m[1])
			wholes[shown] = html.UnescapeString(m[2])
			if strings.HasPrefix(shown, "set -") || strings.Contains(shown, "\n") {
				t.Errorf("%s: a Command cell shows %q", l, shown)
			}
		}
		for i, w := range want {
			whole, ok := wholes[w]
			fetch := []string{"git -C", "curl "}[i]
			if !ok || !strings.Contains(whole, fetch) {
				t.Errorf("%s: no Command cell shows %q with the whole script (%s…) beside it; cells: %q", l, w, fetch, wholes)
			}
		}
	}
}
