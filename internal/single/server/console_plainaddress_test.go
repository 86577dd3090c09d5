package server

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A browser that opened an https console (--console-url behind a proxy)
// at the server's plain address keeps none of its Secure cookies, so its
// sign-in cannot work there: it is answered with a page, in its
// language, that says so and links the sign-in page at the console's
// address, rather than as a stale form. A sign-in whose page came over
// https, or one that kept its cookie (a browser on localhost), is
// answered as before.
func TestASigninThroughThePlainAddressOfAnHTTPSConsoleLinksItsAddress(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(cfg *Config) { cfg.ConsoleURL = "https://ql.example.com/" })
	page, err := http.Get(site.base + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	_ = page.Body.Close()
	m := csrfField.FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no sign-in form:\n%s", body)
	}
	var form *http.Cookie
	for _, ck := range page.Cookies() {
		if ck.Name == "__Host-ql_signin" {
			form = ck
		}
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	signin := func(origin, language string, cookie *http.Cookie) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, site.base+"/signin",
			strings.NewReader(url.Values{"csrf": {m[1]}, "token": {site.tokens["read"]}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		req.Header.Set("Accept-Language", language)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const link = `<a href="https://ql.example.com/signin">https://ql.example.com/signin</a>`
	for language, want := range map[string]string{"en": "opened at a plain-HTTP address", "zh-CN": "明文 HTTP 地址"} {
		code, page := signin(site.base, language, nil)
		if code != http.StatusForbidden || !strings.Contains(page, want) || !strings.Contains(page, link) {
			t.Fatalf("%s: a sign-in from the plain address without its Secure cookie: %d; want 403 saying %q and linking %s:\n%s", language, code, want, link, page)
		}
	}
	if code, page := signin("https://ql.example.com", "en", nil); code != http.StatusForbidden || strings.Contains(page, link) || !strings.Contains(page, "CSRF") {
		t.Fatalf("a sign-in from the https address without its cookie: %d; want the stale form's 403, not the plain address's page:\n%s", code, page)
	}
	if code, page := signin(site.base, "en", form); code != http.StatusSeeOther {
		t.Fatalf("a sign-in from the plain address with its cookie kept: %d; want signed in:\n%s", code, page)
	}
}
