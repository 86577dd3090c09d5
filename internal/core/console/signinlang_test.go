package console

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
)

// browser is a cookie jar over the console, as a browser keeps one.
type browser struct {
	c       *Console
	cookies map[string]string
}

func (b *browser) do(method, path string, form url.Values) *httptest.ResponseRecorder {
	var r *http.Request
	if form != nil {
		r = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	for k, v := range b.cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	w := httptest.NewRecorder()
	b.c.ServeHTTP(w, r)
	for _, ck := range w.Result().Cookies() {
		if ck.MaxAge < 0 {
			delete(b.cookies, ck.Name)
		} else {
			b.cookies[ck.Name] = ck.Value
		}
	}
	return w
}

// signIn sends the sign-in form of page, the sign-in page, with token.
func (b *browser) signIn(t *testing.T, page, token string) *httptest.ResponseRecorder {
	t.Helper()
	form := url.Values{"token": {token}}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="(csrf|next)" value="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	return b.do(http.MethodPost, "/signin", form)
}

// newToken is a read token of site's store, to sign in with.
func newToken(t *testing.T, site *batchSite) string {
	t.Helper()
	secret, _, err := apitoken.Create(context.Background(), site.st, "tester", ids.New(), "visitor", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// A signed-out visitor's link that asks for Chinese (a Run's page, the
// overview) shows the sign-in page in Chinese, and the console signed in
// to from it stays Chinese: the choice is kept as the language switch
// keeps it, past the page the link named.
func TestASignedOutVisitorsLanguageHoldsOnTheSignInPageAndAfter(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	token := newToken(t, site)
	for _, link := range []string{"/runs?lang=zh", "/?lang=zh"} {
		b := &browser{c: site.c, cookies: map[string]string{}}
		w := b.do(http.MethodGet, link, nil)
		to := w.Header().Get("Location")
		if w.Code != http.StatusSeeOther || !strings.HasPrefix(to, "/signin?lang=zh") {
			t.Fatalf("%s without a session: %d to %q, want the sign-in page in Chinese", link, w.Code, to)
		}
		page := b.do(http.MethodGet, to, nil).Body.String()
		if !strings.Contains(page, `<html lang="zh-CN">`) || !strings.Contains(page, "<h1>登录</h1>") {
			t.Fatalf("%s: the sign-in page is not in Chinese:\n%s", link, page)
		}
		w = b.signIn(t, page, token)
		if w.Code != http.StatusSeeOther {
			t.Fatalf("%s: signing in answered %d:\n%s", link, w.Code, w.Body)
		}
		for _, after := range []string{w.Header().Get("Location"), "/triggers"} {
			if page := b.do(http.MethodGet, after, nil).Body.String(); !strings.Contains(page, `<html lang="zh-CN">`) {
				t.Errorf("%s: %s after signing in is not in Chinese:\n%s", link, after, page)
			}
		}
	}
}

// Signing out lands on the sign-in page saying the session ended, in the
// page's language.
func TestSigningOutSaysSoOnTheSignInPage(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	token := newToken(t, site)
	for l, said := range map[string]string{"en": "You are signed out.", "zh": "你已退出登录。"} {
		b := &browser{c: site.c, cookies: map[string]string{langCookie: l}}
		page := b.do(http.MethodGet, "/signin", nil).Body.String()
		if strings.Contains(page, `id="signed-out"`) {
			t.Fatalf("%s: a sign-in page no sign-out led to says one happened:\n%s", l, page)
		}
		if w := b.signIn(t, page, token); w.Code != http.StatusSeeOther {
			t.Fatalf("%s: signing in answered %d:\n%s", l, w.Code, w.Body)
		}
		w := b.do(http.MethodPost, "/signout", url.Values{"csrf": {csrfOf(t, b.do(http.MethodGet, "/runs", nil).Body.String())}})
		if w.Code != http.StatusSeeOther {
			t.Fatalf("%s: signing out answered %d:\n%s", l, w.Code, w.Body)
		}
		page = b.do(http.MethodGet, w.Header().Get("Location"), nil).Body.String()
		if !strings.Contains(page, `<p class="notice" role="status" id="signed-out">`+said) {
			t.Errorf("%s: the page after signing out does not say %q:\n%s", l, said, page)
		}
	}
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF value on the page:\n%s", page)
	}
	return m[1]
}

// The language switch says which language the page is in to a screen
// reader (aria-current), on the language shown and no other.
func TestTheLanguageSwitchMarksTheCurrentLanguage(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	current := regexp.MustCompile(`<a [^>]*id="lang-(en|zh)"[^>]*aria-current="true"[^>]*>`)
	for _, l := range []string{"en", "zh"} {
		for _, path := range []string{"/runs?lang=" + l, "/signin?lang=" + l} {
			page := site.do(apitoken.Read, path, nil).Body.String()
			marked := current.FindAllStringSubmatch(page, -1)
			if len(marked) != 1 || marked[0][1] != l {
				t.Errorf("%s: the switch marks %v as current, want %s alone", path, marked, l)
			}
		}
	}
}
