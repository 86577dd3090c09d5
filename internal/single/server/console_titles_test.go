package server

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

var pageTitle = regexp.MustCompile(`<title>([^<]*)</title>`)

// Every console page names itself in the browser's title, in the page's
// language, before the product's name: tabs, history and bookmarks of the
// console are told apart (every page was titled "QingLong").
func TestEveryConsolePageNamesItselfInItsTitle(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/signin", nil); titleOf(page) != "Sign in · QingLong" {
		t.Errorf("the sign-in page is titled %q", titleOf(page))
	}
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	for _, p := range []struct{ path, en, zh string }{
		{"/", "Overview · QingLong", "概览 · 青龙"},
		{"/triggers", "Triggers · QingLong", "触发器 · 青龙"},
		{"/triggers/" + site.triggerID, "shop/nightly · QingLong", "shop/nightly · 青龙"},
		{"/runs", "Runs · QingLong", "运行 · 青龙"},
		{"/runs/" + id, "Run " + id + " · QingLong", "运行 " + id + " · 青龙"},
		{"/definitions", "Definitions · QingLong", ""},
		{"/tokens", "Tokens · QingLong", ""},
		{"/triggers/not-an-id", "That request was not valid · QingLong", "请求无效 · 青龙"},
	} {
		for lang, want := range map[string]string{"en": p.en, "zh": p.zh} {
			if want == "" {
				continue
			}
			_, page := httpcall.Form(t, c, http.MethodGet, site.base+p.path+"?lang="+lang, nil)
			if got := titleOf(page); got != want {
				t.Errorf("%s in %s is titled %q, want %q", p.path, lang, got, want)
			}
		}
	}
	form := url.Values{"csrf": {csrf}, "from": {"2024-01-01T00:00"}, "to": {"2026-01-01T00:00"}}
	if _, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill/preview?lang=zh", form); titleOf(page) != "回填：shop/nightly · 青龙" {
		t.Errorf("the backfill preview in zh is titled %q", titleOf(page))
	}
}

func titleOf(page string) string {
	if m := pageTitle.FindStringSubmatch(page); m != nil {
		return m[1]
	}
	return ""
}
