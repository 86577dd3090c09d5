package server

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The definitions page shows every task of the project, one no trigger
// runs too, as `ql export` prints it: a file edited there and applied
// leaves out nothing the project has.
func TestTheDefinitionsPageShowsATaskNoTriggerRuns(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	lonely := "project: shop\ntasks:\n  - name: lonely\n    command: [/bin/true]\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply?lang=en", url.Values{"csrf": {csrf}, "yaml": {lonely}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("apply a task no trigger runs: %d\n%s", resp.StatusCode, page)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=shop&lang=en", nil)
	text := html.UnescapeString(page)
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, "  - name: lonely\n    command: [/bin/true]\n") || !strings.Contains(text, "  - name: report\n") {
		t.Fatalf("the definitions page of shop: %d; want both tasks, lonely too:\n%s", resp.StatusCode, page)
	}
}
