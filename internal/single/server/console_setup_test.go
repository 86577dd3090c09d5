package server

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// setupSite is a standalone server started on a database without any
// account, with its log.
type setupSite struct {
	srv  *Server
	dir  string
	base string
	logs *lockedBuffer
	// setup is the setup code read from its file at the start.
	setup string
}

var setupCodeForm = regexp.MustCompile(`^((?:[A-Z2-7]{4}-){7}[A-Z2-7]{4})\n$`)

func startSetupSite(t *testing.T) *setupSite {
	t.Helper()
	dir := installedDir(t)
	logs := &lockedBuffer{}
	srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	b, err := os.ReadFile(filepath.Join(dir, SetupCodeFile))
	m := setupCodeForm.FindStringSubmatch(string(b))
	if err != nil || m == nil {
		t.Fatalf("no setup code in its file (%v): %q", err, b)
	}
	return &setupSite{srv: srv, dir: dir, base: "http://" + srv.Addr(), logs: logs, setup: m[1]}
}

// code is the setup code the server wrote to its file.
func (s *setupSite) code(*testing.T) string { return s.setup }

// setupForm fetches the setup page for c and returns its CSRF value.
func (s *setupSite) setupForm(t *testing.T, c *http.Client) string {
	t.Helper()
	resp, page := httpcall.Form(t, c, http.MethodGet, s.base+"/setup", nil)
	m := csrfField.FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("setup page: %d\n%s", resp.StatusCode, page)
	}
	return m[1]
}

// postSetup sends the setup form as filled in with name, password and code.
func (s *setupSite) postSetup(t *testing.T, c *http.Client, csrf, name, code string) (*http.Response, string) {
	t.Helper()
	return httpcall.Form(t, c, http.MethodPost, s.base+"/setup", url.Values{"csrf": {csrf}, "user": {name}, "password": {ownerPassword}, "password2": {ownerPassword}, "code": {code}})
}

func TestTheFirstOwnerIsCreatedInTheBrowserWithTheSetupCodeFromItsFile(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	logs := site.logs.String()
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "code="+console.CodeSetupCode) || !strings.Contains(logs, site.base+"/setup") ||
		!strings.Contains(logs, filepath.Join(site.dir, SetupCodeFile)) {
		t.Fatalf("the setup code's line is not a WARN with its code, the setup page's address and the code's file:\n%s", logs)
	}
	c := consoleClient(t)
	_, signin := httpcall.Form(t, c, http.MethodGet, site.base+"/signin?lang=zh", nil)
	if !strings.Contains(signin, `id="setup-link"`) || !strings.Contains(signin, `href="/setup"`) || !strings.Contains(signin, "创建第一个所有者") {
		t.Fatalf("the sign-in page of a server without accounts offers no setup page (in Chinese):\n%s", signin)
	}
	csrf := site.setupForm(t, c)
	// The code as a person may type it: lower case, spaces for dashes.
	typed := strings.ToLower(strings.ReplaceAll(site.code(t), "-", " "))
	resp, body := site.postSetup(t, c, csrf, "lead", typed)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("setup with the logged code: %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="nav-tokens"`) || !strings.Contains(page, "lead") {
		t.Fatalf("the new owner is not signed in with the owner's pages: %d\n%s", resp.StatusCode, page)
	}
	u, _, err := site.srv.store.UserCredentials(t.Context(), "lead")
	if err != nil || u.Role != account.Owner || u.LastSigninAtMs == nil {
		t.Fatalf("the first owner is stored as %+v %v", u, err)
	}
	if st, loc, msg := (&consoleSite{base: site.base}).signInUser(t, consoleClient(t), "lead", ownerPassword); st != http.StatusSeeOther || loc != "/" {
		t.Fatalf("the first owner signs in with its password: %d to %q (%q)", st, loc, msg)
	}
	if !strings.Contains(site.logs.String(), "code="+console.CodeFirstOwnerCreated+" user=lead") {
		t.Fatalf("the first owner's creation is not logged:\n%s", site.logs.String())
	}
}

// A name or password the CLI would refuse is refused here too, in the
// page's language, and does not spend the code.
func TestTheSetupFormKeepsTheRulesOfUsersCreate(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	c := consoleClient(t)
	csrf := site.setupForm(t, c)
	cases := []struct {
		form url.Values
		want string
	}{
		{url.Values{"user": {"Lead Person"}, "password": {ownerPassword}, "password2": {ownerPassword}}, "用户名“Lead Person”"},
		{url.Values{"user": {"lead"}, "password": {"short"}, "password2": {"short"}}, "新密码有 5 个字符"},
		{url.Values{"user": {"lead"}, "password": {ownerPassword}, "password2": {ownerPassword + "!"}}, "两次输入的新密码不同"},
	}
	for _, tc := range cases {
		tc.form.Set("csrf", csrf)
		tc.form.Set("code", site.code(t))
		resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/setup?lang=zh", tc.form)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("setup with %v: %d, want 400 saying %q\n%s", tc.form, resp.StatusCode, tc.want, body)
		}
	}
	if resp, body := site.postSetup(t, c, csrf, "lead", site.code(t)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the code was spent by refused forms: %d\n%s", resp.StatusCode, body)
	}
}

func TestTheSetupCodeIsSpentOnceEvenWhenSentTwiceAtOnce(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	const n = 4
	clients, forms := make([]*http.Client, n), make([]string, n)
	for i := range n {
		clients[i] = consoleClient(t)
		forms[i] = site.setupForm(t, clients[i])
	}
	code := site.code(t)
	statuses := make([]int, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			resp, _ := site.postSetup(t, clients[i], forms[i], "lead"+string(rune('a'+i)), code)
			statuses[i] = resp.StatusCode
		}()
	}
	start.Done()
	wg.Wait()
	won := 0
	for _, st := range statuses {
		if st == http.StatusSeeOther {
			won++
		}
	}
	users, err := site.srv.store.UserList(t.Context())
	if err != nil || won != 1 || len(users) != 1 {
		t.Fatalf("%d forms sent with one code at once: answers %v, %d users stored (%v); want exactly one created", n, statuses, len(users), err)
	}
	if resp, _ := site.postSetup(t, consoleClient(t), forms[0], "late", code); resp.StatusCode == http.StatusSeeOther {
		t.Fatal("the spent code created another owner")
	}
}

func TestTheSetupFormIsGoneOnceAUserExists(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	c := consoleClient(t)
	csrf := site.setupForm(t, c)
	// The CLI path, beside the running server.
	if _, err := account.Create(t.Context(), site.srv.store, "tester", ids.New(), "dora", account.Owner, ownerPassword); err != nil {
		t.Fatal(err)
	}
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/setup", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "an account exists already") {
		t.Fatalf("the setup page once a user exists: %d\n%s", resp.StatusCode, page)
	}
	if _, signin := httpcall.Form(t, c, http.MethodGet, site.base+"/signin", nil); strings.Contains(signin, `href="/setup"`) {
		t.Fatalf("the sign-in page still offers the setup page:\n%s", signin)
	}
	if resp, _ := site.postSetup(t, c, csrf, "mallory", site.code(t)); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the logged code once a user exists: %d, want 404", resp.StatusCode)
	}
	if users, err := site.srv.store.UserList(t.Context()); err != nil || len(users) != 1 {
		t.Fatalf("users: %+v %v; want dora alone", users, err)
	}
	if err := site.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	srv, err := Start(t.Context(), Config{DataDir: site.dir, HTTPAddr: "127.0.0.1:0", Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	if strings.Contains(logs.String(), console.CodeSetupCode) {
		t.Fatalf("a server with an account logs a setup code:\n%s", logs.String())
	}
	if resp, _ := httpcall.Form(t, consoleClient(t), http.MethodGet, "http://"+srv.Addr()+"/setup", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the setup page of a server started with an account: %d, want 404", resp.StatusCode)
	}
}

func TestAWrongSetupCodeIsThrottled(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	c := consoleClient(t)
	csrf := site.setupForm(t, c)
	wrong := "AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA"
	for i := range 10 {
		resp, body := site.postSetup(t, c, csrf, "lead", wrong)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not the setup code") {
			t.Fatalf("wrong code %d: %d, want 401 saying so\n%s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := site.postSetup(t, c, csrf, "lead", site.code(t))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "wait a minute") {
		t.Fatalf("after ten wrong codes: %d (Retry-After %q), want 429 saying to wait\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if users, err := site.srv.store.UserList(t.Context()); err != nil || len(users) != 0 {
		t.Fatalf("a throttled setup stored %+v %v", users, err)
	}
}

// The code is in its file, readable by the server's user alone, and in no
// log line and no page; once the owner exists the file is gone, and no
// file of the data directory, the database's included, holds the code.
func TestTheSetupCodeIsOnlyInItsPrivateFileWhichGoesOnceAnOwnerExists(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	code := site.code(t)
	bare := strings.ReplaceAll(code, "-", "")
	file := filepath.Join(site.dir, SetupCodeFile)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the setup code's file has mode %v; want 0600", fi.Mode().Perm())
	}
	c := consoleClient(t)
	var pages []string
	_, signin := httpcall.Form(t, c, http.MethodGet, site.base+"/signin", nil)
	csrf := site.setupForm(t, c)
	_, setupPage := httpcall.Form(t, c, http.MethodGet, site.base+"/setup", nil)
	_, wrong := site.postSetup(t, c, csrf, "lead", code+"X")
	_, short := httpcall.Form(t, c, http.MethodPost, site.base+"/setup", url.Values{"csrf": {csrf}, "user": {"lead"}, "password": {"short"}, "password2": {"short"}, "code": {code}})
	resp, _ := site.postSetup(t, c, csrf, "lead", code)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("setup: %d", resp.StatusCode)
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the setup code's file is still there once the owner exists (%v)", err)
	}
	_, again := site.postSetup(t, consoleClient(t), csrf, "other", code)
	_, overview := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	pages = append(pages, signin, setupPage, wrong, short, again, overview)
	for i, p := range pages {
		if strings.Contains(p, code) || strings.Contains(p, bare) {
			t.Errorf("page %d shows the setup code", i)
		}
	}
	if err := site.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	logs := site.logs.String()
	if strings.Contains(logs, code) || strings.Contains(logs, bare) || strings.Count(logs, "code="+console.CodeSetupCode) != 1 {
		t.Fatalf("the log shows the setup code, or says where it is other than once:\n%s", logs)
	}
	err = filepath.WalkDir(site.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), code) || strings.Contains(string(b), bare) {
			t.Errorf("%s holds the setup code", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The setup form's CSRF value is checked against nothing the server keeps
// in its process: a setup page loaded before a restart, filled in with the
// code the restarted server wrote, creates the owner.
func TestASetupPageLoadedBeforeARestartCreatesTheOwnerAfterIt(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	c := consoleClient(t)
	csrf := site.setupForm(t, c)
	if err := site.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: site.dir, HTTPAddr: "127.0.0.1:0", Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	b, err := os.ReadFile(filepath.Join(site.dir, SetupCodeFile))
	m := setupCodeForm.FindStringSubmatch(string(b))
	if err != nil || m == nil {
		t.Fatalf("no setup code in its file after the restart (%v): %q", err, b)
	}
	again := &setupSite{srv: srv, dir: site.dir, base: "http://" + srv.Addr(), setup: m[1]}
	resp, body := again.postSetup(t, c, csrf, "lead", again.code(t))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the setup page loaded before the restart, posted after it: %d to %q, want the owner created\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
}

// The setup form and the sign-in's second step, double-submit forms as
// the sign-in's, are refused when a browser posts them from a page of
// another site, even with a matching cookie and value; the code is not
// spent.
func TestTheSetupAndSecondStepFormsFromAnotherSiteAreRefused(t *testing.T) {
	t.Parallel()
	site := startSetupSite(t)
	const planted = "chosen-by-the-attacker"
	for path, form := range map[string]url.Values{
		"/setup":           {"csrf": {planted}, "user": {"lead"}, "password": {ownerPassword}, "password2": {ownerPassword}, "code": {site.code(t)}},
		"/signin/two-step": {"csrf": {planted}, "ticket": {"a-ticket"}, "code": {"123456"}},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, site.base+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.AddCookie(&http.Cookie{Name: "ql_setup", Value: planted})
		req.AddCookie(&http.Cookie{Name: "ql_signin", Value: planted})
		resp, err := consoleClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "sent from a page of another site or address") {
			t.Fatalf("%s posted from another site: %d, want 403 saying where it came from:\n%s", path, resp.StatusCode, body)
		}
	}
	c := consoleClient(t)
	if resp, body := site.postSetup(t, c, site.setupForm(t, c), "lead", site.code(t)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the setup code after the refused forms: %d, want the owner created\n%s", resp.StatusCode, body)
	}
}
