package server

import (
	"encoding/json"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// startSecretsSite is a console site whose task report gives its env
// API_KEY the secret shop_api_key, which the secrets file does not
// define; the file defines aaa_unused, which nothing uses. Its log is
// logs.
func startSecretsSite(t *testing.T, logs *lockedBuffer) *consoleSite {
	t.Helper()
	cmd := task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: slowScript, TimeoutMs: time.Hour.Milliseconds(),
		Env: []task.EnvVar{{Name: "API_KEY", SecretRef: "shop_api_key"}}}
	site := startConsoleSiteCommand(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, cmd, func(c *Config) {
		if logs != nil {
			c.Logger = slog.New(slog.NewJSONHandler(logs, nil))
		}
	})
	if err := os.WriteFile(LayoutOf(site.dir).Secrets, []byte(`{"aaa_unused": "unused-v4lue-never-shown"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return site
}

// secretsFile is what the site's secrets file holds.
func secretsFile(t *testing.T, site *consoleSite) map[string]string {
	t.Helper()
	b, err := os.ReadFile(LayoutOf(site.dir).Secrets)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	return all
}

// An admin sets a secret on the console page, replaces it (a textarea's
// CRLF lines stored as LF) and deletes it after a confirmation that names
// the task that would fail; each change is a redirect to the page's
// notice, which names the uses, and a log line with its code, the name
// and who, and no answer or log line carries a value.
func TestTheSecretsPageSetsReplacesAndDeletesASecretWithoutSendingItsValue(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	site := startSecretsSite(t, &logs)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	values := []string{"unused-v4lue-never-shown", "first-v4lue-xyz", "second-l1ne\nthird-l1ne"}
	var pages []string
	get := func(path string) string {
		t.Helper()
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, page)
		}
		pages = append(pages, page)
		return page
	}
	post := func(path string, form url.Values, wantLocation string) {
		t.Helper()
		form.Set("csrf", csrf)
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+path, form)
		pages = append(pages, page)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != wantLocation {
			t.Fatalf("POST %s: %d to %q, want 303 to %s\n%s", path, resp.StatusCode, resp.Header.Get("Location"), wantLocation, page)
		}
	}

	page := get("/secrets")
	missing, unused := strings.Index(page, `id="secret-shop_api_key"`), strings.Index(page, `id="secret-aaa_unused"`)
	if missing < 0 || unused < missing || !strings.Contains(page[missing:unused], "missing: used but not defined") ||
		!strings.Contains(page[missing:unused], `href="/definitions?project=shop"`) || !strings.Contains(page[missing:unused], "task report, env API_KEY") {
		t.Fatalf("the page should list shop_api_key first as missing, used by report's API_KEY with a link to shop's definitions, then aaa_unused:\n%s", page)
	}

	post("/secrets", url.Values{"name": {"shop_api_key"}, "value": {values[1]}}, "/secrets?set=shop_api_key")
	page = get("/secrets?set=shop_api_key")
	if !strings.Contains(page, `id="sec-done"`) || !strings.Contains(page, "Secret shop_api_key created. The next Run that needs it reads it; nothing needs a restart.") ||
		!strings.Contains(page, "task report, env API_KEY") {
		t.Fatalf("after the set the page should say it was created, that no restart is needed, and its uses:\n%s", page)
	}
	if got := secretsFile(t, site)["shop_api_key"]; got != values[1] {
		t.Fatalf("the file holds %q for shop_api_key after the set", got)
	}

	post("/secrets", url.Values{"name": {"shop_api_key"}, "value": {"second-l1ne\r\nthird-l1ne"}}, "/secrets?set=shop_api_key&replaced=1")
	if page = get("/secrets?set=shop_api_key&replaced=1"); !strings.Contains(page, "Secret shop_api_key replaced.") {
		t.Fatalf("after the replace the page should say so:\n%s", page)
	}
	if got := secretsFile(t, site)["shop_api_key"]; got != values[2] {
		t.Fatalf("the file holds %q after the replace, want the textarea's lines ended by LF", got)
	}

	page = get("/secrets?delete=shop_api_key")
	confirm, _, _ := strings.Cut(page[strings.Index(page, `id="sec-confirm"`)+1:], "</section>")
	if !strings.Contains(confirm, "Delete secret shop_api_key?") || !strings.Contains(confirm, "secret_unavailable") || !strings.Contains(confirm, "task report, env API_KEY") ||
		!strings.Contains(confirm, `action="/secrets/delete"`) {
		t.Fatalf("the delete should ask to be confirmed, naming the task that would fail:\n%s", page)
	}
	if _, ok := secretsFile(t, site)["shop_api_key"]; !ok {
		t.Fatal("asking to delete deleted the secret before it was confirmed")
	}
	post("/secrets/delete", url.Values{"name": {"shop_api_key"}}, "/secrets?deleted=shop_api_key")
	page = get("/secrets?deleted=shop_api_key")
	if _, ok := secretsFile(t, site)["shop_api_key"]; ok || !strings.Contains(page, "Secret shop_api_key deleted.") ||
		!strings.Contains(page, "These now fail with secret_unavailable") {
		t.Fatalf("after the confirmed delete the file should lack it and the page say so, with what now fails:\n%s", page)
	}

	for _, p := range append(pages, logs.String()) {
		for _, v := range values {
			for _, part := range strings.Split(v, "\n") {
				if strings.Contains(p, part) {
					t.Fatalf("an answer or the log carries a secret's value %q:\n%s", part, p)
				}
			}
		}
	}
	for code, want := range map[string]int{`"code":"secrets.set","secret":"shop_api_key"`: 2, `"code":"secrets.deleted","secret":"shop_api_key"`: 1} {
		if got := strings.Count(logs.String(), code); got != want {
			t.Errorf("the log has %d lines %s, want %d:\n%s", got, code, want, logs.String())
		}
	}
	if !strings.Contains(logs.String(), `"actor":"console:token:console-admin@127.0.0.1"`) {
		t.Errorf("the log does not say who changed the secret:\n%s", logs.String())
	}
}

// A name the file could not hold or a value too short to be masked is
// said on the form in the page's language, naming the field; the form
// keeps the name typed and sends no value back, and the file is
// untouched.
func TestTheSecretsFormSaysAMistakeInThePagesLanguageWithoutTheValue(t *testing.T) {
	t.Parallel()
	site := startSecretsSite(t, nil)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	for _, f := range []struct {
		lang, name, value, want string
	}{
		{"zh", "bad name!", "v4lue-not-sent-back", "名称：“bad name!”不是有效的密钥名称"},
		{"en", "bad name!", "v4lue-not-sent-back", `Name: &#34;bad name!&#34; is not a secret name`},
		{"zh", "short_one", "q!z", "值：只有 3 个字节，至少需要 4 个"},
		{"en", "short_one", "q!z", "Value: it has 3 bytes, at least 4 are needed"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/secrets?lang="+f.lang, url.Values{"csrf": {csrf}, "name": {f.name}, "value": {f.value}})
		errBox, _, _ := strings.Cut(page[max(strings.Index(page, `id="sec-error"`), 0):], "</p>")
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errBox, f.want) || strings.Contains(page, f.value) ||
			!strings.Contains(page, `id="sec-name" name="name" value="`+f.name) {
			t.Errorf("%s: name %q: %d, want 400 saying %q on the form with the name kept and no value:\n%s", f.lang, f.name, resp.StatusCode, f.want, page)
		}
	}
	if got := secretsFile(t, site); len(got) != 1 {
		t.Errorf("refused forms changed the file: it holds %d secrets", len(got))
	}
}

// Only an admin session is offered the secrets page and may use it: a
// session of an operate token has no link to it, and its GET and its
// forms are refused, leaving the file as it was.
func TestOnlyAnAdminSeesOrChangesSecrets(t *testing.T) {
	t.Parallel()
	site := startSecretsSite(t, nil)
	admin := consoleClient(t)
	site.signIn(t, admin, site.tokens[apitoken.Admin])
	if _, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/", nil); !strings.Contains(page, `id="nav-secrets"`) {
		t.Fatalf("an admin's nav should offer the secrets page:\n%s", page)
	}
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil); strings.Contains(page, `href="/secrets"`) {
		t.Fatalf("an operate session's nav offers the secrets page:\n%s", page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/secrets", nil); resp.StatusCode != http.StatusForbidden || strings.Contains(page, "aaa_unused") {
		t.Errorf("an operate session's GET /secrets: %d, want 403 listing nothing", resp.StatusCode)
	}
	for path, form := range map[string]url.Values{
		"/secrets":        {"csrf": {csrf}, "name": {"aaa_unused"}, "value": {"taken-over-value"}},
		"/secrets/delete": {"csrf": {csrf}, "name": {"aaa_unused"}},
	} {
		if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+path, form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("an operate session's POST %s: %d, want 403", path, resp.StatusCode)
		}
	}
	if got := secretsFile(t, site)["aaa_unused"]; got != "unused-v4lue-never-shown" {
		t.Errorf("refused forms changed the file: aaa_unused is %q", got)
	}
}

// A secret missing where the console names it links an admin to the
// secrets page: the definitions preview's note that the file lacks it,
// and a Run's attempt that failed with secret_unavailable. A session of
// an operate token, which may not use the page, gets no link.
func TestAMissingSecretTheConsoleNamesLinksAnAdminToTheSecretsPage(t *testing.T) {
	t.Parallel()
	site := startSecretsSite(t, nil)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	file := "project: shop\ntasks:\n  - name: report\n    script: echo\n    env: {API_KEY: {secret: shop_api_key}}\n"
	if _, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/preview", url.Values{"csrf": {csrf}, "yaml": {file}}); !strings.Contains(defNotes(page), `<a id="def-secrets" href="/secrets">`) {
		t.Errorf("the preview's note of a missing secret links to no secrets page:\n%s", defNotes(page))
	}
	id := site.runNow(t, c, csrf)
	link := `<a class="secrets-link" href="/secrets">`
	waitFor(t, "the attempt to fail with secret_unavailable", 20*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id, nil)
		return strings.Contains(page, "secret_unavailable") && strings.Contains(page, link)
	})
	operate := consoleClient(t)
	site.signIn(t, operate, site.tokens[apitoken.Operate])
	if _, page := httpcall.Form(t, operate, http.MethodGet, site.base+"/runs/"+id, nil); !strings.Contains(page, "secret_unavailable") || strings.Contains(page, link) {
		t.Errorf("an operate session's run page should show secret_unavailable without the link:\n%s", page)
	}
}

// A secret's use is one link, in the page's language, to the page that
// shows what uses it: the task (or channel) with its project, to that
// project's definitions, since a task has no page of its own; not a link
// on the project's name beside a task named in plain words.
func TestASecretsUseByATaskLinksToTheDefinitionsThatShowIt(t *testing.T) {
	t.Parallel()
	site := startSecretsSite(t, nil)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	for lang, use := range map[string]string{"en": "shop · task report, env API_KEY", "zh": "shop · 任务 report，环境变量 API_KEY"} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/secrets?lang="+lang, nil)
		if want := `<a href="/definitions?project=shop">` + use + `</a>`; !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("%s: the missing secret's use is not the link %s:\n%s", lang, want, page)
		}
	}
}
