package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The console's Audit page, offered in the navigation to an admin
// session only, lists who revoked a token (in the console: its session
// and address) and who paused a project, newest first, with the actions
// named in the page's language (English and Chinese); an operate session
// is neither offered nor shown it.
func TestTheConsoleAuditPageListsWhoChangedWhatInBothLanguages(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/tokens/console-read/revoke", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Fatalf("revoke: %d\n%s", resp.StatusCode, page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/projects/shop/pause", url.Values{"csrf": {csrf}, "note": {"freeze <b>"}}); !tookForm(resp) {
		t.Fatalf("project pause: %d\n%s", resp.StatusCode, page)
	}
	page := func(lang string) string {
		t.Helper()
		resp, p := httpcall.Form(t, c, http.MethodGet, site.base+"/audit?lang="+lang, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("audit page in %s: %d\n%s", lang, resp.StatusCode, p)
		}
		return p
	}
	by := "<bdi>console:token:console-admin@127.0.0.1</bdi>"
	en := page("en")
	_, table, _ := strings.Cut(en, `id="audit-trail"`)
	rows := strings.Split(table, `<tr class="audit-record">`)[1:]
	if !strings.Contains(en, `id="nav-audit"`) || !strings.Contains(en, "<h1>Audit</h1>") || len(rows) < 3 {
		t.Fatalf("the audit page in English: want it in the navigation, its title and the records:\n%s", en)
	}
	// The pause's two records (the project's and its trigger's), then the
	// revoke, then the tokens the site was made with.
	first, revoke := strings.Join(rows[:2], ""), rows[2]
	if !strings.Contains(first, ">project paused<") || !strings.Contains(first, "freeze &lt;b&gt;") || !strings.Contains(first, by) {
		t.Fatalf("the newest records %q: want the project's pause by the session, its note escaped", first)
	}
	if !strings.Contains(revoke, ">token revoked<") || !strings.Contains(revoke, "<bdi>console-read</bdi>") || !strings.Contains(revoke, by) {
		t.Fatalf("the third record %q: want the revoke of console-read by the session", revoke)
	}
	zh := page("zh")
	if !strings.Contains(zh, "<h1>审计</h1>") || !strings.Contains(zh, ">吊销令牌<") || !strings.Contains(zh, ">暂停项目<") || !strings.Contains(zh, `id="nav-audit">审计<`) {
		t.Fatalf("the audit page in Chinese: want its title, navigation and actions in Chinese:\n%s", zh)
	}

	op := consoleClient(t)
	site.signIn(t, op, site.tokens[apitoken.Operate])
	if _, home := httpcall.Form(t, op, http.MethodGet, site.base+"/", nil); strings.Contains(home, `id="nav-audit"`) {
		t.Fatal("an operate session is offered the audit page")
	}
	if resp, _ := httpcall.Form(t, op, http.MethodGet, site.base+"/audit", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("an operate session asking for the audit page: %d, want 403", resp.StatusCode)
	}
}
