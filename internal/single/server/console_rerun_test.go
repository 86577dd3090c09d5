package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

var requestField = regexp.MustCompile(`name="request" value="([^"]+)"`)

// A finished Run's page offers Re-run to an operate token; the form makes
// one new Run linked to it however often it is sent, whose page names the
// original; an unfinished Run's page offers none, and a forged re-run of
// it is refused with 409.
func TestConsoleRerunsAFinishedRunOncePerForm(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", url.Values{"csrf": {csrf}})
	orig := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	if resp.StatusCode != http.StatusSeeOther || orig == "" {
		t.Fatalf("run now: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+orig, nil); strings.Contains(page, `id="rerun"`) {
		t.Fatal("an unfinished Run's page offers Re-run")
	}
	if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+orig+"/rerun", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusConflict || !strings.Contains(body, "only a finished Run") {
		t.Fatalf("re-run of an unfinished Run: %d %q, want 409 saying why", resp.StatusCode, body)
	}
	httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+orig+"/cancel", url.Values{"csrf": {csrf}})
	var page string
	waitFor(t, "the cancelled Run's page to offer Re-run", 10*time.Second, func() bool {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+orig, nil)
		return strings.Contains(page, `id="rerun"`)
	})
	m := requestField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the Re-run form carries no request id:\n%s", page)
	}
	form := url.Values{"csrf": {csrf}, "request": {m[1]}}
	first, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+orig+"/rerun", form)
	again, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+orig+"/rerun", form)
	loc := first.Header.Get("Location")
	if first.StatusCode != http.StatusSeeOther || loc == "/runs/"+orig || !strings.HasPrefix(loc, "/runs/") || again.Header.Get("Location") != loc {
		t.Fatalf("re-run twice with one form: %d to %q, then to %q; want one new Run", first.StatusCode, loc, again.Header.Get("Location"))
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+loc, nil); !strings.Contains(page, `id="rerun-of" href="/runs/`+orig+`"`) {
		t.Fatalf("the re-run's page does not name the original %s:\n%s", orig, page)
	}
	httpcall.Form(t, c, http.MethodPost, site.base+loc+"/cancel", url.Values{"csrf": {csrf}})
}
