package server

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// While two-step sign-in is required, a user without it meets error pages
// the wall's check is not what refuses: a method an address does not take
// (405, on a page and on the account page itself), a page above the
// user's scope (403), a form without its CSRF value on the set-up's own
// route (403), and a form to an address that is none (refused at the
// wall, where a GET of it is sent to the account page). Each shows the
// header the wall's pages show: only the account page, sign-out and the
// switches leading to the account page, never the links that would only
// lead back there. So on ql and on ql-edge.
func TestEveryErrorPageAUserAtTheWallMeetsShowsOnlyTheAccountAndSignOut(t *testing.T) {
	t.Parallel()
	for _, binary := range []string{"ql", "ql-edge"} {
		t.Run(binary, func(t *testing.T) {
			t.Parallel()
			site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true", func(c *Config) { c.Binary = binary })
			c, csrf := walledUser(t, site)
			for _, e := range []struct {
				name, method, path string
				form               url.Values
				status             int
			}{
				{"a page asked with a method it does not take", http.MethodPut, "/runs", nil, http.StatusMethodNotAllowed},
				{"a form's address asked with GET", http.MethodGet, "/triggers/" + site.triggerID + "/pause", nil, http.StatusMethodNotAllowed},
				{"the account page asked with a method it does not take", http.MethodDelete, "/account", nil, http.StatusMethodNotAllowed},
				{"a page above the user's scope", http.MethodGet, "/audit", nil, http.StatusForbidden},
				{"the set-up's form without its CSRF value", http.MethodPost, "/account/two-step/begin", url.Values{}, http.StatusForbidden},
				{"a form to an address that is none", http.MethodPost, "/no-such-page", url.Values{"csrf": {csrf}}, http.StatusForbidden},
			} {
				resp, page := httpcall.Form(t, c, e.method, site.base+e.path+"?lang=en", e.form)
				if resp.StatusCode != e.status {
					t.Errorf("%s (%s %s) at the wall: %d, want %d\n%s", e.name, e.method, e.path, resp.StatusCode, e.status, page)
					continue
				}
				h := html.UnescapeString(headerOf(t, page))
				for _, link := range pageLinks {
					if strings.Contains(h, link) {
						t.Errorf("%s (%s %s) at the wall links %s:\n%s", e.name, e.method, e.path, link, h)
					}
				}
				for _, want := range []string{`id="nav-account"`, `id="signout"`} {
					if !strings.Contains(h, want) {
						t.Errorf("%s (%s %s) at the wall lacks %s:\n%s", e.name, e.method, e.path, want, h)
					}
				}
				for _, want := range switchesToAccount {
					if !want.MatchString(h) {
						t.Errorf("%s (%s %s) at the wall has no switch matching %s:\n%s", e.name, e.method, e.path, want, h)
					}
				}
			}
			// Once two-step sign-in is no longer required, the same
			// refusal shows the page links again.
			site.requireTwoStep(t, false)
			if _, page := httpcall.Form(t, c, http.MethodPut, site.base+"/runs?lang=en", nil); !strings.Contains(headerOf(t, page), `href="/runs"`) {
				t.Fatalf("a method refused once two-step is no longer required shows no page links:\n%s", headerOf(t, page))
			}
		})
	}
}
