package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// consoleSite is a standalone server on SQLite with one trigger that
// fires once a year (so only "run now" runs it) and a token per scope.
type consoleSite struct {
	srv       *Server
	dir       string
	base      string
	triggerID string
	// projectID is the id of the trigger's project, shop.
	projectID string
	tokens    map[apitoken.Scope]string
	// owner is the name of an account of role owner whose password is
	// ownerPassword.
	owner string
}

const ownerPassword = "correct horse battery"

// slowScript prints a numbered line every 100ms for half a minute: long
// enough to watch live and to cancel.
const slowScript = `i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo "line $i"; sleep 0.1; done`

// restart stops the site's server and starts another on its data
// directory, the site then naming the new one.
func (site *consoleSite) restart(t *testing.T) {
	t.Helper()
	if err := site.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: site.dir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	site.srv, site.base = srv, "http://"+srv.Addr()
}

func startConsoleSite(t testing.TB) *consoleSite {
	t.Helper()
	return startConsoleSiteWith(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce})
}

// startSignedInConsoleSite is startConsoleSite with a client signed in
// with its token of scope, and the session's CSRF token.
func startSignedInConsoleSite(t testing.TB, scope apitoken.Scope) (*consoleSite, *http.Client, string) {
	t.Helper()
	site := startConsoleSite(t)
	c := consoleClient(t)
	return site, c, site.signIn(t, c, site.tokens[scope])
}

// startConsoleSiteWith is startConsoleSite with the trigger's schedule.
func startConsoleSiteWith(t testing.TB, cron trigger.Cron) *consoleSite {
	t.Helper()
	return startConsoleSiteRunning(t, cron, slowScript)
}

// startConsoleSiteRunning is startConsoleSite with the trigger's schedule
// and its task's script.
func startConsoleSiteRunning(t testing.TB, cron trigger.Cron, script string) *consoleSite {
	t.Helper()
	return startConsoleSiteConfigured(t, cron, script, func(*Config) {})
}

// startConsoleSiteConfigured is startConsoleSiteRunning with the server's
// settings changed by configure.
func startConsoleSiteConfigured(t testing.TB, cron trigger.Cron, script string, configure func(*Config)) *consoleSite {
	t.Helper()
	return startConsoleSiteCommand(t, cron, task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds()}, configure)
}

// startConsoleSiteCommand is startConsoleSiteConfigured with the task's
// whole command.
func startConsoleSiteCommand(t testing.TB, cron trigger.Cron, cmd task.Command, configure func(*Config)) *consoleSite {
	t.Helper()
	dir := installedDir(t)
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := project.Project{ID: ids.New(), Name: "shop", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "report", Enabled: true, Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "nightly", Enabled: true, Cron: cron})
	if err != nil {
		t.Fatal(err)
	}
	site := &consoleSite{dir: dir, triggerID: tg.TriggerID, projectID: p.ID, tokens: map[apitoken.Scope]string{}}
	for _, s := range apitoken.Scopes {
		secret, _, err := apitoken.Create(t.Context(), b.Store, "tester", ids.New(), "console-"+string(s), s, 0)
		if err != nil {
			t.Fatal(err)
		}
		site.tokens[s] = secret
	}
	site.owner = "olivia"
	if _, err := account.Create(t.Context(), b.Store, "tester", ids.New(), site.owner, account.Owner, ownerPassword); err != nil {
		t.Fatal(err)
	}
	b.Close()
	cfg := Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	configure(&cfg)
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	site.srv, site.base = srv, "http://"+srv.Addr()
	return site
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// client is a cookie-keeping HTTP client that does not follow redirects,
// so a test sees each answer itself, but for the one a form that
// succeeded answers with to the page showing what it did (?flash=), which
// a browser follows at once.
func consoleClient(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Query().Has("flash") {
			return nil
		}
		return http.ErrUseLastResponse
	}}
}

// tookForm reports whether a form was taken: answered 303, or 303 to the
// page showing what it did, which consoleClient follows.
func tookForm(resp *http.Response) bool {
	return resp.StatusCode == http.StatusSeeOther || resp.StatusCode == http.StatusOK && resp.Request.URL.Query().Has("flash")
}

// signinForm fetches the sign-in page for c and returns its form's CSRF
// value and the page.
func (s *consoleSite) signinForm(t testing.TB, c *http.Client) (csrf, page string) {
	t.Helper()
	_, page = httpcall.Form(t, c, http.MethodGet, s.base+"/signin", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the sign-in page has no CSRF field:\n%s", page)
	}
	return m[1], page
}

// signIn signs c in with a token and returns the session's CSRF token.
func (s *consoleSite) signIn(t testing.TB, c *http.Client, token string) string {
	t.Helper()
	csrf, _ := s.signinForm(t, c)
	resp, _ := httpcall.Form(t, c, http.MethodPost, s.base+"/signin", url.Values{"csrf": {csrf}, "token": {token}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-in answered %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, page := httpcall.Form(t, c, http.MethodGet, s.base+"/", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the overview has no CSRF field (sign-out form):\n%s", page)
	}
	return m[1]
}

func concrete(pattern, id string) string {
	p := strings.ReplaceAll(pattern, "{id}", id)
	p = strings.ReplaceAll(p, "{name}", "console-read")
	p = strings.ReplaceAll(p, "{project}", "shop")
	p = strings.ReplaceAll(p, "{$}", "")
	if p == "/assets/" {
		p += "app.css"
	}
	return p
}

// Every console route but the sign-in page and the assets refuses a
// browser without a session (a page redirects to sign-in, an action is
// 401), refuses a token of too small a scope (403), and every answer
// carries the strict security headers.
func TestEveryConsoleRouteNeedsASessionAndItsScope(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	anon := consoleClient(t)
	reader := consoleClient(t)
	readCSRF := site.signIn(t, reader, site.tokens[apitoken.Read])
	for _, r := range console.Patterns() {
		method, path, scope := r[0], concrete(r[1], site.triggerID), apitoken.Scope(r[2])
		var form url.Values
		if method == http.MethodPost {
			form = url.Values{}
		}
		resp, _ := httpcall.Form(t, anon, method, site.base+path, form)
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s %s: Content-Security-Policy %q is not strict", method, path, csp)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: X-Frame-Options %q, want DENY", method, path, resp.Header.Get("X-Frame-Options"))
		}
		switch {
		case scope == "":
			if resp.StatusCode >= 500 || resp.StatusCode == http.StatusUnauthorized {
				t.Errorf("%s %s without a session: %d, want it served", method, path, resp.StatusCode)
			}
		case method == http.MethodGet:
			want := "/signin"
			if path != "/" {
				want += "?next=" + url.QueryEscape(path)
			}
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
				t.Errorf("%s %s without a session: %d to %q, want 303 to %s", method, path, resp.StatusCode, resp.Header.Get("Location"), want)
			}
		default:
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s without a session: %d, want 401", method, path, resp.StatusCode)
			}
		}
		if scope == "" || apitoken.Read.Allows(scope) {
			continue
		}
		resp, body := httpcall.Form(t, reader, method, site.base+path, url.Values{"csrf": {readCSRF}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "scope read") {
			t.Errorf("%s %s with a read token: %d %q, want 403 naming the scope", method, path, resp.StatusCode, body)
		}
	}
}

// A POST without the session's CSRF token changes nothing and is refused,
// as is a sign-in without the sign-in form's CSRF cookie; the session
// cookie is HttpOnly and SameSite=Strict.
func TestConsolePostWithoutCSRFIsRefused(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"token": {site.tokens[apitoken.Operate]}})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-in without CSRF: %d, want 403", resp.StatusCode)
	}
	site.signIn(t, c, site.tokens[apitoken.Operate])
	u, _ := url.Parse(site.base)
	var sess *http.Cookie
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "ql_session" {
			sess = ck
		}
	}
	if sess == nil {
		t.Fatal("no session cookie after sign-in")
	}
	for _, path := range []string{"/triggers/" + site.triggerID + "/pause", "/triggers/" + site.triggerID + "/run", "/signout"} {
		for _, form := range []url.Values{{}, {"csrf": {"forged"}}} {
			resp, body := httpcall.Form(t, c, http.MethodPost, site.base+path, form)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "CSRF") {
				t.Errorf("POST %s with csrf %q: %d %q, want 403 naming CSRF", path, form.Get("csrf"), resp.StatusCode, body)
			}
		}
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil)
	if !strings.Contains(page, `id="pause"`) {
		t.Fatalf("the trigger was changed by a CSRF-less POST, or the page offers no pause:\n%s", page)
	}
}

// The session cookie is HttpOnly and SameSite=Strict, and a read token's
// pages offer no buttons that change anything.
func TestConsoleSessionCookieAndScopedButtons(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/signin", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF field on the sign-in page")
	}
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {m[1]}, "token": {site.tokens[apitoken.Read]}})
	var set string
	for _, v := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(v, "ql_session=") {
			set = v
		}
	}
	if !strings.Contains(set, "HttpOnly") || !strings.Contains(set, "SameSite=Strict") {
		t.Fatalf("session cookie %q, want HttpOnly and SameSite=Strict", set)
	}
	// The next fire is known once the scheduler has taken the trigger up.
	waitFor(t, "the trigger page shows the next fire", 5*time.Second, func() bool {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil)
		return strings.Contains(page, `id="next-fire"><span class="time">`)
	})
	for _, button := range []string{`id="pause"`, `id="runnow"`} {
		if strings.Contains(page, button) {
			t.Errorf("a read token's trigger page offers %s", button)
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, site.base+"/", nil)
	req.Header.Set("Accept-Language", "zh-CN,zh;q=0.9,en;q=0.5")
	resp2, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if !strings.Contains(string(b), "概览") {
		t.Errorf("Accept-Language zh-CN did not give the Chinese overview")
	}
}

// Signing in again and again with one token keeps at most 20 sessions of
// it: each sign-in past that ends the token's oldest session, and no
// session of another token or user.
func TestAFloodOfSigninsWithOneTokenEndsOnlyItsOwnOldestSessions(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	other := consoleClient(t)
	site.signIn(t, other, site.tokens[apitoken.Operate])
	var flood []*http.Client
	for range 21 {
		c := consoleClient(t)
		site.signIn(t, c, site.tokens[apitoken.Read])
		flood = append(flood, c)
	}
	if resp, _ := httpcall.Form(t, flood[0], http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the token's oldest session answered %d after 21 sign-ins with it, want 303 to /signin", resp.StatusCode)
	}
	for i, c := range append([]*http.Client{other}, flood[1:]...) {
		if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("session %d answered %d, want 200: only the flooding token's oldest session may end", i, resp.StatusCode)
		}
	}
}

// A token used only through a console session records its last use, as
// one used over the API does, so `ql tokens list` does not show it unused.
func TestATokenUsedOnlyThroughTheConsoleRecordsItsLastUse(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("runs page: %d", resp.StatusCode)
	}
	tokens, err := site.srv.store.TokenList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		if tok.Name == "console-read" && tok.LastUsedAtMs == nil {
			t.Fatal("the token a console session was signed in with records no last use")
		}
	}
}

// A sign-in form over 16 KiB is refused with 413 saying so, as every
// other console form is.
func TestASigninFormOverTheCapIs413(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	csrf, _ := site.signinForm(t, c)
	resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {site.tokens[apitoken.Read]}, "pad": {strings.Repeat("x", 17<<10)}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "16 KiB") {
		t.Fatalf("a sign-in form over 16 KiB: %d, want 413 naming the cap:\n%s", resp.StatusCode, body)
	}
}

// A token pasted short (or not a token at all) is told what a whole one
// looks like and what to do, not only what it starts with.
func TestAPastedTokenThatIsNotWholeIsToldWhatAWholeOneIs(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	whole := site.tokens[apitoken.Read]
	for _, pasted := range []string{whole[:20], "qlt_short", "not-a-token"} {
		csrf, _ := site.signinForm(t, c)
		resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {pasted}})
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "qlt_ and 43 more characters") || !strings.Contains(body, "Paste all of it") {
			t.Fatalf("sign-in with %q: %d, want 401 saying what a whole token is:\n%s", pasted, resp.StatusCode, body)
		}
	}
}

// A sign-in form's value is a double-submit one the server keeps nowhere,
// so a value planted by a page elsewhere (login CSRF: a neighbouring
// subdomain, or another port of this host, setting the cookie and posting
// a form with the same value and the attacker's token) is refused by
// where its form came from: a browser names the page's site in
// Sec-Fetch-Site, or its Origin where it sends no Sec-Fetch-Site. The
// refusal says what to do, in English and Chinese.
func TestASigninWithAPlantedCSRFCookieIsRefused(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	const planted = "chosen-by-the-attacker"
	for _, tc := range []struct {
		name, header, value, language, want string
	}{
		{"a neighbouring subdomain's page", "Sec-Fetch-Site", "same-site", "en", "sent from a page of another site or address"},
		{"another site's page", "Sec-Fetch-Site", "cross-site", "zh-CN", "其他站点或地址的页面"},
		{"another port's page, from a browser without Sec-Fetch-Site", "Origin", "http://127.0.0.1:1", "en", "sent from a page of another site or address"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, site.base+"/signin",
			strings.NewReader(url.Values{"csrf": {planted}, "token": {site.tokens[apitoken.Read]}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(tc.header, tc.value)
		req.Header.Set("Accept-Language", tc.language)
		req.AddCookie(&http.Cookie{Name: "ql_signin", Value: planted})
		resp, err := consoleClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), tc.want) || resp.Header.Get("Location") != "" {
			t.Fatalf("a sign-in with a planted CSRF cookie from %s: %d, want 403 saying %q:\n%s", tc.name, resp.StatusCode, tc.want, body)
		}
	}
}

// sendHost makes one request with the Host header given, without a session.
func sendHost(t *testing.T, method, target, host string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := consoleClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The Host allow-list holds for every answer, a path with a dot or empty
// segment (//, ..) included.
func TestEveryAnswerChecksTheHost(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	for _, path := range []string{"/api/v1//runs", "/x/../signin", "/signin", "/nope"} {
		if resp := sendHost(t, http.MethodGet, site.base+path, "evil.example"); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("GET %s with Host evil.example: %d, want 421", path, resp.StatusCode)
		}
	}
}

// A path the console does not have sends a browser without a session to
// sign in, like every page (leaving an open sign-in form good), and is the
// console's own 404 page with one.
func TestAnUnknownConsolePathIsTheConsoles404PageOrSignin(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	resp, _ := httpcall.Form(t, consoleClient(t), http.MethodGet, site.base+"/no/such/page", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin?next=%2Fno%2Fsuch%2Fpage" {
		t.Fatalf("an unknown path without a session: %d to %q, want 303 to sign in and back", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A browser fetches its icon on its own while the sign-in form is
	// open; being sent to sign in, that fetch must not make the form stale.
	c := consoleClient(t)
	csrf, _ := site.signinForm(t, c)
	browser := &http.Client{Jar: c.Jar}
	if resp, _ := httpcall.Form(t, browser, http.MethodGet, site.base+"/favicon.ico", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the icon, followed to sign-in: %d", resp.StatusCode)
	}
	resp, _ = httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {site.tokens[apitoken.Read]}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the open sign-in form after the icon's fetch: %d, want 303 to /", resp.StatusCode)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/no/such/page", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "There is no such page here.") || !strings.Contains(page, `href="/runs"`) {
		t.Fatalf("an unknown path with a session: %d, want the console's 404 page in its layout:\n%s", resp.StatusCode, page)
	}
}

// A page visited without a session (a notification's link to a Run, a
// bookmark) is where the sign-in returns, with the token or an account;
// a sign-in asked to return anywhere but a page of this console goes to
// the overview instead.
func TestASignInReturnsToThePageThatSentItThere(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	page := "/runs?trigger=" + url.QueryEscape("console-read")
	c := consoleClient(t)
	resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+page, nil)
	signin := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || signin != "/signin?next="+url.QueryEscape(page) {
		t.Fatalf("%s without a session: %d to %q, want 303 to sign in and back", page, resp.StatusCode, signin)
	}
	_, form := httpcall.Form(t, c, http.MethodGet, site.base+signin, nil)
	if !strings.Contains(form, `name="next" value="/runs?trigger=console-read"`) {
		t.Fatalf("the sign-in form does not carry the page to return to:\n%s", form)
	}
	csrf := csrfField.FindStringSubmatch(form)[1]
	resp, _ = httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {site.tokens[apitoken.Read]}, "next": {page}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("the sign-in answered %d to %q, want 303 back to %s", resp.StatusCode, resp.Header.Get("Location"), page)
	}
	for _, elsewhere := range []string{"https://evil.example/runs", "//evil.example/runs", "/\\evil.example", "/signin?next=/runs", "runs", "/runs\r\nX: y"} {
		c := consoleClient(t)
		csrf, _ := site.signinForm(t, c)
		resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {site.tokens[apitoken.Read]}, "next": {elsewhere}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Errorf("a sign-in asked to return to %q answered %d to %q, want 303 to the overview", elsewhere, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
