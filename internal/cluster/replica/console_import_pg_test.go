package replica

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica, which may not publish, downloads a project's definitions as
// the file its Definitions page shows (`ql export`'s), and converts an
// imported crontab into the file to apply with `ql apply -f FILE`, with
// each line not converted and why, offering no apply; that file applies
// as it is.
func TestAReplicaDownloadsDefinitionsAndConvertsACrontabToApplyElsewhere(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("web", 1, clustertest.QuietCron()))
	secret := env.Token(t, "owner", apitoken.Admin)
	r := startReplica(t, bin, env, "replica-import")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	_, page := get("/definitions?project=web&lang=en")
	_, shown, _ := strings.Cut(page, `<textarea id="def-yaml" rows="24" readonly spellcheck="false" autocapitalize="off">`)
	shown, _, _ = strings.Cut(shown, "</textarea>")
	resp, file := get("/projects/web/definitions.yaml")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Disposition") != `attachment; filename="web.yaml"` || file == "" || file != html.UnescapeString(shown) ||
		!strings.Contains(page, `href="/projects/web/definitions.yaml"`) {
		t.Fatalf("web's definitions downloaded from a replica: %d %q, want the file its Definitions page shows, linked there:\n%s\npage:\n%s", resp.StatusCode, resp.Header.Get("Content-Disposition"), file, page)
	}
	csrf := csrfIn.FindStringSubmatch(page)[1]
	resp, err := c.PostForm(base+"/definitions/import/preview?lang=en", url.Values{"csrf": {csrf}, "project": {"panel"}, "timezone": {"Asia/Shanghai"},
		"crontab": {"0 5 0 * * * node /ql/scripts/jd_bean_sign.js\n33 8 * * * ql repo https://example.com/o/s.git\n57 13 * * * ql rmlog 7\n"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	_, converted, _ := strings.Cut(body, `<textarea id="imp-yaml" rows="24" readonly spellcheck="false" autocapitalize="off">`)
	converted, _, _ = strings.Cut(converted, "</textarea>")
	converted = html.UnescapeString(converted)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="imp-nopublish"`) || !strings.Contains(converted, "project: panel\n") ||
		!strings.Contains(html.UnescapeString(body), "ql rmlog is the qinglong panel's command") || strings.Contains(body, `action="/definitions/apply"`) ||
		!strings.Contains(html.UnescapeString(body), "each worker keeps its own copy") {
		t.Fatalf("a crontab imported on a replica: %d, want the converted file to copy with the line not converted, the pull task's note saying each worker keeps its own copy, and no apply:\n%s", resp.StatusCode, body)
	}
	env.Apply(t, converted)
}
