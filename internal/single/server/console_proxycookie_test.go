package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Behind a TLS-terminating proxy the server listens on plain HTTP, but the
// browser reaches the console over https (--console-url): its session
// cookie and its sign-in form's are then Secure and __Host- prefixed, as
// over TLS.
func TestBehindAnHTTPSConsoleURLTheSessionCookieIsSecure(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(cfg *Config) { cfg.ConsoleURL = "https://ql.example.com/" })
	// The client is the proxy: it sends the form's Secure cookie back
	// over plain HTTP, as a browser does over the proxy's https.
	page, err := http.Get(site.base + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	_ = page.Body.Close()
	var form *http.Cookie
	for _, ck := range page.Cookies() {
		if ck.Name == "__Host-ql_signin" {
			form = ck
		}
	}
	if form == nil || !form.Secure || form.Path != "/" || form.Domain != "" {
		t.Fatalf("the sign-in form's cookie %+v, want __Host-ql_signin, Secure, Path=/, no Domain", form)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, site.base+"/signin",
		strings.NewReader(url.Values{"csrf": {form.Value}, "token": {site.tokens["read"]}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: form.Name, Value: form.Value})
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	var got *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "__Host-ql_session" {
			got = ck
		}
	}
	if resp.StatusCode != http.StatusSeeOther || got == nil || !got.Secure || got.Path != "/" || got.Domain != "" {
		t.Fatalf("sign-in behind an https console URL: %d, session cookie %+v; want __Host-ql_session, Secure, Path=/, no Domain", resp.StatusCode, got)
	}
}
