package console

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
)

// envRow is the count of a page's env editor rows.
var envRow = regexp.MustCompile(`<tr class="env-row">`)

// withSecretsFile is canPublish with a secrets file defining names (each
// valued "v-NAME"), as a standalone server's console has one.
func withSecretsFile(t *testing.T, names ...string) func(*Config) {
	return func(cfg *Config) {
		canPublish(cfg)
		path := filepath.Join(t.TempDir(), "qinglong-secrets.json")
		var pairs []string
		for _, n := range names {
			pairs = append(pairs, `"`+n+`": "v-`+n+`"`)
		}
		if err := os.WriteFile(path, []byte("{"+strings.Join(pairs, ", ")+"}"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg.Secrets = &process.Secrets{Path: path}
	}
}

// envSite is a site that may publish, with a secrets file defining
// JD_COOKIE, for the env editor's tests.
func envSite(t *testing.T) *batchSite {
	return newBatchSite(t, withSecretsFile(t, "JD_COOKIE"))
}

// envIn is one env row as a task form sends it: a value, or (secret) the
// name of a secret.
type envIn struct {
	name, value string
	secret      bool
}

// newTaskFilled is a New task form filled in, with the env rows rows.
func newTaskFilled(task string, rows ...envIn) url.Values {
	v := url.Values{"project": {"shop"}, "task": {task}, "script": {"node /ql/scripts/jd_bean_sign.js"}, "cron": {"0 5 0 * * *"}, "timezone": {"Asia/Shanghai"}, "env_sent": {"1"}}
	for _, r := range rows {
		addEnvRow(v, r.name, r.value, r.secret)
	}
	return v
}

// between is the part of page after the first from and before the next
// to: one block of a page ("" when from is not there).
func between(page, from, to string) string {
	_, after, _ := strings.Cut(page, from)
	inside, _, _ := strings.Cut(after, to)
	return inside
}

// addEnvRow adds a row to a task form's env rows: a value, or
// (secret true) the name of a secret.
func addEnvRow(v url.Values, name, value string, secret bool) {
	v.Add("env_name", name)
	if secret {
		v.Add("env_kind", "secret")
		v.Add("env_value", "")
		v.Add("env_secret", value)
		return
	}
	v.Add("env_kind", "value")
	v.Add("env_value", value)
	v.Add("env_secret", "")
}

// The New task form has an env editor of one empty row; Add a variable,
// sent without a script in the page, answers the form as filled in with
// an empty row more and previews nothing, and the page's script adds a
// row in place (so both ways add rows).
func TestTheNewTaskFormAddsEnvRowsWithOrWithoutAScript(t *testing.T) {
	t.Parallel()
	site := envSite(t)
	page := site.do(apitoken.Admin, "/definitions/new", nil).Body.String()
	if n := len(envRow.FindAllString(page, -1)); n != 1 || !strings.Contains(page, `<input type="hidden" name="env_sent" value="1">`) || !strings.Contains(page, `id="env-add"`) {
		t.Fatalf("the New task form shows %d env rows, want one empty row and the Add button:\n%s", n, page)
	}
	filled := newTaskFilled("bean", envIn{"JD_COOKIE", "JD_COOKIE", true}, envIn{"MODE", "fast", false})
	filled.Set("env_add", "1")
	w := site.do(apitoken.Admin, "/definitions/new", filled)
	page = html.UnescapeString(w.Body.String())
	if w.Code != http.StatusOK || strings.Contains(page, `id="def-preview"`) || len(envRow.FindAllString(page, -1)) != 3 {
		t.Fatalf("%d: Add a variable does not answer the form with the two rows and an empty one:\n%s", w.Code, page)
	}
	for _, want := range []string{`name="env_name" value="JD_COOKIE"`, `<option value="JD_COOKIE" selected>JD_COOKIE</option>`, `name="env_name" value="MODE"`, ">\nfast</textarea>",
		`id="nt-task" name="task" value="bean"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the form after Add a variable does not hold %q:\n%s", want, page)
		}
	}
	js, err := assets.ReadFile("assets/app.js")
	if err != nil || !strings.Contains(string(js), `document.getElementById("env-add")`) || !strings.Contains(string(js), "e.preventDefault()") {
		t.Errorf("the page's script does not add an env row in place (%v)", err)
	}
}

// The New task preview shows the task's env — a value as typed, a secret
// by its name, never its value — and its file names the secret; an empty
// row and a row ticked Remove are left out; Back returns every row; the
// applied task has the env.
func TestTheNewTaskPreviewShowsItsEnvWithSecretsByName(t *testing.T) {
	t.Parallel()
	site := envSite(t)
	filled := newTaskFilled("bean", envIn{"JD_COOKIE", "JD_COOKIE", true}, envIn{"GONE", "x", false}, envIn{"MODE", "8080", false}, envIn{})
	filled.Add("env_remove", "1")
	for l, want := range map[string]string{"en": "secret JD_COOKIE (its value is given at start, never shown)", "zh": "密钥 JD_COOKIE（启动时提供其值，从不显示）"} {
		w := site.do(apitoken.Admin, "/definitions/new?lang="+l, filled)
		page := html.UnescapeString(w.Body.String())
		shown := between(page, `<div id="env-shown">`, "</div>")
		if w.Code != http.StatusOK || !strings.Contains(shown, "<dt><code>JD_COOKIE</code></dt><dd>"+want+"</dd>") || !strings.Contains(shown, `<dt><code>MODE</code></dt><dd><code class="env-literal">8080</code></dd>`) ||
			strings.Contains(shown, "GONE") || strings.Contains(page, "v-JD_COOKIE") {
			t.Fatalf("%s: %d, the preview does not show the env as sent (secret by name, no removed row, no value of a secret):\n%s", l, w.Code, page)
		}
		for _, line := range []string{"      JD_COOKIE: {secret: JD_COOKIE}\n", "      MODE: \"8080\"\n"} {
			if !strings.Contains(page, line) {
				t.Errorf("%s: the preview's file does not write %q:\n%s", l, line, page)
			}
		}
	}
	preview := site.do(apitoken.Admin, "/definitions/new", filled).Body.String()
	back := previewForm(t, preview)
	back.Set("back", "1")
	form := html.UnescapeString(site.do(apitoken.Admin, "/definitions/new", back).Body.String())
	if len(envRow.FindAllString(form, -1)) != 3 || !strings.Contains(form, `<option value="JD_COOKIE" selected>`) || !strings.Contains(form, ">\n8080</textarea>") {
		t.Errorf("Back from the preview does not return the two rows sent and an empty one:\n%s", form)
	}
	applied := site.do(apitoken.Admin, "/definitions/apply", previewForm(t, preview))
	if applied.Code != http.StatusOK {
		t.Fatalf("apply: %d %s", applied.Code, applied.Body)
	}
	tk, err := site.st.TaskByName(t.Context(), projectID(t, site, "shop"), "bean")
	if err != nil {
		t.Fatal(err)
	}
	want := []task.EnvVar{{Name: "JD_COOKIE", SecretRef: "JD_COOKIE"}, {Name: "MODE", Value: "8080"}}
	if got := tk.Spec.Command.Env; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the applied task's env is %+v, want %+v", got, want)
	}
}

// The env rows are checked as apply checks a file's env — a reserved
// name, a malformed one, a name given twice — and a row set from a secret
// with none chosen is refused too; each is said beside the env editor,
// not at the top of the form, in English and in Chinese, and the form
// keeps the rows as typed.
func TestTheEnvEditorRefusesAsApplyDoesBesideItsRows(t *testing.T) {
	t.Parallel()
	site := envSite(t)
	filled := newTaskFilled("bean", envIn{"QL_RUN", "1", false}, envIn{"1BAD", "1", false}, envIn{"TWICE", "1", false}, envIn{"TWICE", "2", false}, envIn{"NOSECRET", "", true})
	for l, want := range map[string][]string{
		"en": {"Environment variables (optional): ", `"QL_RUN" is reserved`, `"1BAD" must match`, "TWICE", "NOSECRET is set from a secret, but none is chosen"},
		"zh": {"环境变量（可选）：", "QL_RUN", "1BAD", "TWICE", "NOSECRET 设为来自密钥，但没有选择密钥"},
	} {
		w := site.do(apitoken.Admin, "/definitions/new?lang="+l, filled)
		page := html.UnescapeString(w.Body.String())
		beside := between(page, `<ul class="error" id="env-errors" role="alert">`, "</ul>")
		if w.Code != http.StatusBadRequest || strings.Count(beside, "<li>") != 4 || strings.Contains(page, `id="nt-errors"`) {
			t.Fatalf("%s: %d, want the four mistakes beside the env editor alone:\n%s", l, w.Code, page)
		}
		for _, s := range want {
			if !strings.Contains(beside, s) {
				t.Errorf("%s: the env editor's mistakes do not say %q:\n%s", l, s, beside)
			}
		}
		if len(envRow.FindAllString(page, -1)) != 6 || !strings.Contains(page, `name="env_name" value="NOSECRET"`) {
			t.Errorf("%s: the refused form does not keep the five rows as typed:\n%s", l, page)
		}
	}
}

// The env editor offers, by name, the secrets of the file a task of the
// user's projects may name — the global ones and its projects' own — and
// never a value; where the file is elsewhere (a cluster's workers hold
// it) it takes a typed name and says so.
func TestTheEnvEditorOffersTheSecretsByNameNeverTheirValues(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t, "JD_COOKIE", "shop/OWN", "depot/THEIRS"))
	page := site.do(apitoken.Admin, "/definitions/new", nil).Body.String()
	for _, want := range []string{`<option value="JD_COOKIE">JD_COOKIE</option>`, `<option value="shop/OWN">shop/OWN</option>`, `<option value="depot/THEIRS">depot/THEIRS</option>`} {
		if !strings.Contains(page, want) {
			t.Errorf("an unbound user's editor does not offer %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "v-JD_COOKIE") || strings.Contains(page, `id="env-typed"`) {
		t.Errorf("the editor shows a secret's value, or asks for a typed name beside a file it reads:\n%s", page)
	}
	elsewhere := newBatchSite(t, canPublish)
	page = elsewhere.do(apitoken.Admin, "/definitions/new", nil).Body.String()
	if !strings.Contains(page, `<input name="env_secret" value=""`) || !strings.Contains(page, `id="env-typed"`) {
		t.Errorf("without a secrets file here the editor does not take a typed name:\n%s", page)
	}
}

// projectID is the id of the site's project of that name.
func projectID(t *testing.T, site *batchSite, name string) string {
	t.Helper()
	p, err := site.st.ProjectByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}
