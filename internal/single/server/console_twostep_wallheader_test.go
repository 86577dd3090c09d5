package server

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// headerOf is a page's header: its navigation, switches and account.
func headerOf(t *testing.T, page string) string {
	t.Helper()
	start, end := strings.Index(page, "<header>"), strings.Index(page, "</header>")
	if start < 0 || end < start {
		t.Fatalf("the page has no header:\n%s", page)
	}
	return page[start:end]
}

// The console's page links: each sends a user at the two-step wall back
// to the account page.
var pageLinks = []string{`href="/"`, `href="/triggers"`, `href="/runs"`, `href="/notifications"`}

// switchesToAccount are the header's language and colour switches
// leading to the account page.
var switchesToAccount = []*regexp.Regexp{regexp.MustCompile(`href="/account\?([^"]*&)?lang=zh"`), regexp.MustCompile(`href="/account\?([^"]*&)?theme=dark"`)}

// While two-step sign-in is required, a user without it sees, on the
// account page and on a form's refusal, in English and in Chinese, a
// header without the console's page links, each of which would send them
// back to the account page: only the account page, sign-out and the
// language and colour switches, which lead to the account page. Once
// the requirement is gone, the links are back. So on ql and on ql-edge.
func TestAUserAtTheWallSeesAHeaderOfOnlyTheAccountAndSignOut(t *testing.T) {
	t.Parallel()
	for _, binary := range []string{"ql", "ql-edge"} {
		t.Run(binary, func(t *testing.T) {
			t.Parallel()
			site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true", func(c *Config) { c.Binary = binary })
			c, csrf := walledUser(t, site)
			for _, lang := range []string{"en", "zh"} {
				_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account?lang="+lang, nil)
				refusedStatus, refused := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/pause?lang="+lang, url.Values{"csrf": {csrf}})
				if refusedStatus.StatusCode != http.StatusForbidden {
					t.Fatalf("a pause at the wall (%s): %d, want refused\n%s", lang, refusedStatus.StatusCode, refused)
				}
				for what, p := range map[string]string{"the account page": page, "a refused form": refused} {
					h := html.UnescapeString(headerOf(t, p))
					for _, link := range pageLinks {
						if strings.Contains(h, link) {
							t.Errorf("%s at the wall (%s) links %s:\n%s", what, lang, link, h)
						}
					}
					for _, want := range []string{`id="nav-account"`, `id="signout"`} {
						if !strings.Contains(h, want) {
							t.Errorf("%s at the wall (%s) lacks %s:\n%s", what, lang, want, h)
						}
					}
					for _, want := range switchesToAccount {
						if !want.MatchString(h) {
							t.Errorf("%s at the wall (%s) has no switch matching %s:\n%s", what, lang, want, h)
						}
					}
				}
			}
			site.requireTwoStep(t, false)
			_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/account?lang=en", nil)
			if h := headerOf(t, page); !strings.Contains(h, `href="/triggers"`) || !strings.Contains(h, `href="/runs"`) {
				t.Fatalf("the header once two-step is no longer required has no page links:\n%s", h)
			}
		})
	}
}
