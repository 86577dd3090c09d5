package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A token's Revoke on the tokens page asks first, as a secret's Delete
// does, in English and in Chinese: the list only links to the question,
// so a tap on the list revokes nothing, with or without scripts; the
// question's form revokes it, its other way out keeps it.
func TestRevokingATokenOnTheConsoleAsksFirst(t *testing.T) {
	t.Parallel()
	site, admin, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, list := httpcall.Form(t, admin, http.MethodGet, site.base+"/tokens?lang=en", nil)
	if strings.Contains(list, `action="/tokens/console-read/revoke"`) || !strings.Contains(list, `href="/tokens?revoke=console-read#tok-confirm"`) || strings.Contains(list, `id="tok-confirm"`) {
		t.Fatalf("the tokens list: want a link to the question of each revoke and no form that revokes:\n%s", list)
	}
	for l, question := range map[string]string{"en": "Revoke token console-read?", "zh": "吊销令牌 console-read？"} {
		_, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/tokens?revoke=console-read&lang="+l, nil)
		box, _, _ := strings.Cut(page[max(strings.Index(page, `id="tok-confirm"`), 0):], "</section>")
		if !strings.Contains(box, question) || !strings.Contains(box, `action="/tokens/console-read/revoke"`) ||
			!strings.Contains(box, `id="tok-revoke-confirm"`) || !strings.Contains(box, `<a href="/tokens">`) {
			t.Errorf("the %s question: want %q, the revoke form and the way back:\n%s", l, question, page)
		}
	}
	if tok, err := site.srv.store.TokenByDigest(t.Context(), apitoken.Digest(site.tokens[apitoken.Read])); err != nil || tok.RevokedAtMs != nil {
		t.Fatalf("asking revoked the token: %+v %v", tok, err)
	}
	if _, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/tokens?revoke=nobody", nil); strings.Contains(page, `id="tok-confirm"`) {
		t.Errorf("the page asks to revoke a token that does not exist:\n%s", page)
	}
	resp, _ := httpcall.Form(t, admin, http.MethodPost, site.base+"/tokens/console-read/revoke", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the question's revoke: %d, want 303", resp.StatusCode)
	}
	if _, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/tokens?revoke=console-read", nil); strings.Contains(page, `id="tok-confirm"`) {
		t.Errorf("the page asks to revoke a token revoked already:\n%s", page)
	}
}
