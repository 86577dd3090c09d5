package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A form's result outlives a restart of the server between the form and
// its page: a new token's secret, made before the server stopped, is shown
// by the server started again on the same data directory, once.
func TestAFormsResultSurvivesARestartOfTheServerBeforeItsPage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	// The redirect is followed by hand, after the restart.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/tokens", url.Values{"csrf": {csrf}, "name": {"deploy"}, "scope": {"read"}})
	to := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(to, "flash=") {
		t.Fatalf("create: %d to %q, want 303 naming a flash:\n%s", resp.StatusCode, to, body)
	}
	site.restart(t)
	secret := regexp.MustCompile(`<code id="new-token">(qlt_[A-Za-z0-9_-]+)</code>`)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+to, nil); !secret.MatchString(page) || !apitoken.LooksLikeToken(secret.FindStringSubmatch(page)[1]) {
		t.Fatalf("the page after the restart does not show the new token's secret:\n%s", page)
	}
	if _, again := httpcall.Form(t, c, http.MethodGet, site.base+to, nil); strings.Contains(again, "qlt_") || !strings.Contains(again, `id="tok-shown-once"`) {
		t.Fatalf("the page loaded again shows the secret, or does not say it was shown:\n%s", again)
	}
}
