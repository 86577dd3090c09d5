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

// A Run's page names the Runs that re-run it, each a link to its page, in
// English and Chinese: a user looking at a lost or failed Run sees it was
// re-run already.
func TestARunsPageNamesTheRunsThatReRunItInEnglishAndChinese(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", url.Values{"csrf": {csrf}})
	orig := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+orig+"/cancel", url.Values{"csrf": {csrf}})
	var page string
	waitFor(t, "the cancelled Run's page to offer Re-run", 10*time.Second, func() bool {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+orig, nil)
		return strings.Contains(page, `id="rerun"`)
	})
	if strings.Contains(page, `id="rerun-as"`) {
		t.Fatalf("the page of a Run never re-run names re-runs:\n%s", page)
	}
	m := requestField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the Re-run form carries no request id:\n%s", page)
	}
	first, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+orig+"/rerun", url.Values{"csrf": {csrf}, "request": {m[1]}})
	rerun := strings.TrimPrefix(first.Header.Get("Location"), "/runs/")
	if first.StatusCode != http.StatusSeeOther || rerun == "" {
		t.Fatalf("re-run: %d to %q", first.StatusCode, first.Header.Get("Location"))
	}
	httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+rerun+"/cancel", url.Values{"csrf": {csrf}})
	// Each language asked by name: a page asked with ?lang= keeps that
	// language for the session's later pages.
	for _, lang := range []struct{ query, title string }{{"?lang=en", "<dt>Re-run as</dt>"}, {"?lang=zh", "<dt>重新运行为</dt>"}} {
		query, title := lang.query, lang.title
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+orig+query, nil)
		if !strings.Contains(page, title+`<dd id="rerun-as"><a href="/runs/`+rerun+`"><code>`+rerun+`</code></a></dd>`) {
			t.Fatalf("the original's page%s does not name its re-run %s as %q:\n%s", query, rerun, title, page)
		}
	}
}
