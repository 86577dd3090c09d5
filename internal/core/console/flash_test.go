package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// Every form that shows its result (a batch, a backfill, a definitions
// apply, a new token) answers 303 See Other when it succeeds, to a page
// that shows that result once: the browser's history holds a GET, so Back
// and reload never send the form again. The page's second load is the
// page itself, without the result.
func TestAFormThatSucceedsAnswers303AndShowsItsResultOnce(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) { canPublish(cfg); withTokenAdmin(cfg) })
	a := site.triggers["a"]
	for _, c := range []struct {
		name, path string
		form       url.Values
		page       string // the path the redirect goes to
		result     string // what only the result shows
	}{
		{"batch", "/triggers/batch", url.Values{"do": {"pause"}, "id": {a}, "q": {"a"}}, "/triggers", `id="batch-outcomes"`},
		{"backfill", "/triggers/" + a + "/backfill", url.Values{"from": {"2020-01-01T00:00"}, "to": {"2021-01-02T00:00"}}, "/triggers/" + a, `id="backfill-done"`},
		{"apply", "/definitions/apply", url.Values{"yaml": {"project: garden\ntasks:\n  - name: water\n    script: echo\n"}}, "/definitions", `id="def-applied"`},
		{"token", "/tokens", url.Values{"name": {"deploy"}, "scope": {"read"}}, "/tokens", `id="new-token"`},
	} {
		w := site.send(apitoken.Admin, c.path, c.form)
		to, err := url.Parse(w.Header().Get("Location"))
		if w.Code != http.StatusSeeOther || err != nil || to.Path != c.page || !to.Query().Has(flashParam) {
			t.Fatalf("%s: %d to %q, want 303 to %s naming its flash:\n%s", c.name, w.Code, w.Header().Get("Location"), c.page, w.Body)
		}
		if strings.Contains(w.Body.String(), c.result) {
			t.Errorf("%s: the POST's own answer shows the result", c.name)
		}
		if page := site.send(apitoken.Admin, to.String(), nil); page.Code != http.StatusOK || !strings.Contains(page.Body.String(), c.result) {
			t.Fatalf("%s: the page the form was sent to does not show its result (%s): %d\n%s", c.name, c.result, page.Code, page.Body)
		}
		if again := site.send(apitoken.Admin, to.String(), nil); again.Code != http.StatusOK || strings.Contains(again.Body.String(), c.result) {
			t.Errorf("%s: the page loaded again is not the page without the result: %d\n%s", c.name, again.Code, again.Body)
		}
	}
	if paused, _ := site.paused(t, "a"); !paused {
		t.Fatal("the batch's pause was not done")
	}
}

// A flash is held in the session whose form made it: another session
// that has its address (a shared link, a shoulder) sees the page without
// it, and the session it belongs to still sees it once.
func TestAFlashIsReadOnlyByTheSessionWhoseFormMadeIt(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	w := site.send(apitoken.Admin, "/triggers/batch", url.Values{"do": {"pause"}, "id": {site.triggers["a"]}})
	to := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.Contains(to, flashParam+"=") {
		t.Fatalf("batch: %d to %q, want 303 naming a flash", w.Code, to)
	}
	if other := site.send(apitoken.Operate, to, nil).Body.String(); strings.Contains(other, `id="batch-outcomes"`) {
		t.Fatalf("another session read the flash:\n%s", other)
	}
	if own := site.send(apitoken.Admin, to, nil).Body.String(); !strings.Contains(own, `id="batch-outcomes"`) {
		t.Fatalf("the session whose form it was no longer has its flash:\n%s", own)
	}
}

var tokenSecret = regexp.MustCompile(`qlt_[A-Za-z0-9_-]+`)

// A new token's secret is never in the redirect's address, is shown on
// the page the redirect leads to, and only there and once: that page
// reloaded (or come back to) says the secret was shown and is not shown
// again, in both languages, and what to do if it was not copied.
func TestANewTokensSecretIsShownOnceAfterTheRedirect(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withTokenAdmin)
	for l, again := range map[string]string{"en": "Its secret was shown once", "zh": "它的密钥只在创建后紧接着的页面上显示过一次"} {
		name := "deploy-" + l
		w := site.send(apitoken.Admin, "/tokens?lang="+l, url.Values{"name": {name}, "scope": {"read"}})
		to := w.Header().Get("Location")
		if w.Code != http.StatusSeeOther || tokenSecret.MatchString(to) || tokenSecret.MatchString(w.Body.String()) {
			t.Fatalf("%s: the create answered %d to %q, want 303 with no secret in the address or the answer:\n%s", l, w.Code, to, w.Body)
		}
		if stolen := site.send(apitoken.Operate, to, nil).Body.String(); tokenSecret.MatchString(stolen) {
			t.Fatalf("%s: another session was shown the secret", l)
		}
		first := site.send(apitoken.Admin, to, nil).Body.String()
		secret := tokenSecret.FindString(first)
		if !apitoken.LooksLikeToken(secret) || !strings.Contains(first, `<code id="new-token">`+secret+`</code>`) {
			t.Fatalf("%s: the page after the redirect does not show the secret:\n%s", l, first)
		}
		reloaded := site.send(apitoken.Admin, to, nil).Body.String()
		if strings.Contains(reloaded, secret) || tokenSecret.MatchString(reloaded) {
			t.Fatalf("%s: the page reloaded shows the secret again", l)
		}
		if text := html.UnescapeString(reloaded); !strings.Contains(text, `id="tok-shown-once"`) || !strings.Contains(text, again) || !strings.Contains(text, name) {
			t.Errorf("%s: the page reloaded does not say the secret of %s was shown once (%q):\n%s", l, name, again, reloaded)
		}
	}
}

// A new token's secret not shown within flashTTL (the browser never
// followed the redirect) is gone: not shown later, and not kept in the
// session's memory once the session makes any other request.
func TestANewTokensSecretNotShownInTimeIsForgotten(t *testing.T) {
	t.Parallel()
	now := time.Now().UnixMilli()
	site := newBatchSite(t, func(cfg *Config) { withTokenAdmin(cfg); cfg.NowMs = func() int64 { return atomic.LoadInt64(&now) } })
	w := site.send(apitoken.Admin, "/tokens", url.Values{"name": {"late"}, "scope": {"read"}})
	to := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", w.Code, w.Body)
	}
	atomic.AddInt64(&now, flashTTL.Milliseconds())
	site.send(apitoken.Admin, "/runs", nil)
	s, _ := site.c.sessions.get(string(apitoken.Admin), atomic.LoadInt64(&now), DefaultSessionIdle.Milliseconds())
	if s == nil {
		t.Fatal("the session is gone")
	}
	s.flashes.mu.Lock()
	held := len(s.flashes.byID)
	s.flashes.mu.Unlock()
	if held != 0 {
		t.Fatalf("the session still holds %d flashes past their time", held)
	}
	if page := site.send(apitoken.Admin, to, nil).Body.String(); tokenSecret.MatchString(page) || !strings.Contains(page, `id="tok-shown-once"`) {
		t.Fatalf("the page after the secret's time shows it, or does not say it was shown:\n%s", page)
	}
}
