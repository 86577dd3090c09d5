package server

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlimport"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// panelValues are values of the qlpanel fixture's variables: no page may
// show one.
var panelValues = []string{"pt_key", "pt_pin", "line one", "tok-0123456789", "X1;", qlpanel.ConfigSecret}

// panelFields are the panel import form's fields for the folder dir into
// project jd.
func panelFields(csrf, dir string) url.Values {
	return url.Values{"csrf": {csrf}, "project": {"jd"}, "timezone": {"Asia/Shanghai"}, "dir": {dir}}
}

// panelApplyForm is the preview's Import form as its button sends it:
// every hidden field as the page holds it.
func panelApplyForm(t *testing.T, preview string) url.Values {
	t.Helper()
	_, form, ok := strings.Cut(preview, `action="/definitions/qinglong/apply"`)
	if !ok {
		t.Fatalf("the preview offers no Import:\n%s", preview)
	}
	form, _, _ = strings.Cut(form, "</form>")
	values := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(form, -1) {
		values.Add(m[1], html.UnescapeString(m[2]))
	}
	return values
}

// showsNoValue fails when page shows a value of the panel's variables.
func showsNoValue(t *testing.T, what, page string) {
	t.Helper()
	for _, v := range panelValues {
		if strings.Contains(page, v) {
			t.Errorf("%s shows the value %q of a panel variable:\n%s", what, v, page)
		}
	}
}

// The Definitions and Subscriptions pages link the panel import; its
// preview of a panel's folder shows the tasks as tasks and triggers, the
// secrets by name and never a value, the dependencies and what is not
// converted; an Import of a panel other than the one previewed stores
// nothing; Import stores it, saying what changed, each secret in the
// audit trail; a second Import changes nothing and says so.
func TestAPanelImportedFromTheConsoleShowsNoSecretValueAndTwiceChangesNothing(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for from, want := range map[string]string{"/definitions?lang=en": "Import from a qinglong panel", "/subscriptions?lang=zh": "从青龙面板导入"} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+from, nil); !strings.Contains(page, `href="/definitions/qinglong`) || !strings.Contains(page, want) {
			t.Errorf("%s does not link the panel import as %q:\n%s", from, want, page)
		}
	}
	data := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/preview?lang=en", panelFields(csrf, data))
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="qlp-preview"`) {
		t.Fatalf("the preview: %d:\n%s", resp.StatusCode, preview)
	}
	for _, want := range []string{"task 1 (京东签到)", "<code>jd_bean_sign</code>", "<code>0 5 0 * * *</code>", "<code>jd/JD_COOKIE</code>", "<code>jd/OLD_TOKEN.disabled</code>",
		"requests==2.31.0", "env SHORT", "subscription 3 (私有仓库)", "config/config.sh", "TG_BOT_TOKEN, TG_USER_ID"} {
		if !strings.Contains(preview, html.EscapeString(want)) && !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	showsNoValue(t, "the preview", preview)
	secrets := process.Secrets{Path: LayoutOf(site.dir).Secrets}

	other := panelApplyForm(t, preview)
	other.Set("sum", "0123")
	other.Set("csrf", csrf)
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/apply?lang=en", other); resp.StatusCode != http.StatusConflict || !strings.Contains(page, `id="qlp-stale"`) {
		t.Errorf("an Import of another panel than the one previewed: %d, want 409 saying so:\n%s", resp.StatusCode, page)
	}
	if names, _ := secrets.Names(); len(names) != 0 {
		t.Fatalf("an Import refused stored secrets %v", names)
	}

	form := panelApplyForm(t, preview)
	resp, applied := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/apply?lang=en", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(applied, `id="qlp-applied"`) || strings.Contains(applied, `id="qlp-nothing"`) ||
		!strings.Contains(applied, "secret jd/JD_COOKIE set") || !strings.Contains(applied, "dependency python requests==2.31.0 declared") || !strings.Contains(applied, `class="qlp-change"`) {
		t.Fatalf("the Import: %d; want it saying what it set, published and declared:\n%s", resp.StatusCode, applied)
	}
	showsNoValue(t, "the Import's page", applied)
	if got, err := secrets.Resolve([]string{"jd/JD_COOKIE"}); err != nil || got["jd/JD_COOKIE"] != "pt_key=AAA;pt_pin=one;&pt_key=BBB;pt_pin=two;" {
		t.Errorf("the secret jd/JD_COOKIE after the Import: %v %v", got, err)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/audit?lang=en", nil); !strings.Contains(page, "jd/JD_COOKIE") {
		t.Errorf("the audit trail does not record the secret the Import set:\n%s", page)
	}

	resp, again := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/apply?lang=en", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(again, `id="qlp-nothing"`) || strings.Contains(again, `class="qlp-secret-set"`) ||
		strings.Contains(again, `class="qlp-change"`) || strings.Contains(again, `class="qlp-declared"`) {
		t.Errorf("a second Import: %d; want it changing nothing and saying so:\n%s", resp.StatusCode, again)
	}
}

// A panel's database uploaded is read from a file of a private temporary
// folder, removed before the page answers: nothing of it is left in the
// temporary folder, after its preview, after its Import and after a file
// that is no database, which is refused in the page's language. A
// folder that is no panel's is refused in the page's language too.
func TestAnUploadedPanelDatabaseIsRemovedOnceRead(t *testing.T) {
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	db, err := os.ReadFile(filepath.Join(qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows), qlimport.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	left := func(after string) {
		t.Helper()
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("after %s, the temporary folder holds %v", after, entries)
		}
	}
	fields := panelFields(csrf, "")
	fields.Del("dir")
	resp, preview := uploadForm(t, c, site.base+"/definitions/qinglong/preview?lang=en", fields, "database", "database.sqlite", string(db))
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, "<code>jd/JD_COOKIE</code>") || !strings.Contains(preview, `id="qlp-apply-file"`) {
		t.Fatalf("the preview of an upload: %d; want the secrets, and the Import asking for the file again:\n%s", resp.StatusCode, preview)
	}
	showsNoValue(t, "the preview of an upload", preview)
	left("the preview")

	resp, applied := uploadForm(t, c, site.base+"/definitions/qinglong/apply?lang=en", panelApplyForm(t, preview), "database", "database.sqlite", string(db))
	if resp.StatusCode != http.StatusOK || !strings.Contains(applied, "secret jd/JD_COOKIE set") {
		t.Errorf("the Import of an upload: %d:\n%s", resp.StatusCode, applied)
	}
	left("the Import")

	resp, page := uploadForm(t, c, site.base+"/definitions/qinglong/preview?lang=zh", fields, "database", "notes.txt", strings.Repeat("not sqlite ", 200))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "文件 notes.txt 不是 SQLite 数据库") {
		t.Errorf("an upload that is no database: %d; want 400 saying so in Chinese:\n%s", resp.StatusCode, page)
	}
	left("a file that is no database")

	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/preview?lang=zh", panelFields(csrf, tmp))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "不是青龙面板的数据目录") {
		t.Errorf("a folder that is no panel's: %d; want 400 saying so in Chinese:\n%s", resp.StatusCode, page)
	}
}

// The panel import is an owner's and an admin's: a session of operate
// scope is refused its form, its preview and its Import.
func TestThePanelImportIsRefusedToAnyoneButAnOwnerOrAdmin(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	data := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/qinglong?lang=en", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the form for an operator: %d, want 403:\n%s", resp.StatusCode, page)
	}
	for _, step := range []string{"preview", "apply"} {
		if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/"+step+"?lang=en", panelFields(csrf, data)); resp.StatusCode != http.StatusForbidden {
			t.Errorf("the %s for an operator: %d, want 403:\n%s", step, resp.StatusCode, page)
		}
	}
	if names, _ := (process.Secrets{Path: LayoutOf(site.dir).Secrets}).Names(); len(names) != 0 {
		t.Errorf("an operator's Import stored secrets %v", names)
	}
}

// While the clock reads behind the database, the panel's preview is
// shown but its Import is refused (503) in the page's language, nothing
// stored.
func TestThePanelImportIsRefusedWhileTheClockReadsBehindTheDatabase(t *testing.T) {
	t.Parallel()
	site := startClockSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	data := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	site.setBack(t)
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/preview?lang=zh", panelFields(csrf, data))
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="qlp-preview"`) {
		t.Fatalf("the preview while the clock reads behind: %d:\n%s", resp.StatusCode, preview)
	}
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/apply?lang=zh", panelApplyForm(t, preview))
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "它的时钟比数据库记录的最新时间落后") {
		t.Errorf("the Import while the clock reads behind: %d; want 503 saying why in Chinese:\n%s", resp.StatusCode, page)
	}
	if names, _ := (process.Secrets{Path: LayoutOf(site.dir).Secrets}).Names(); len(names) != 0 {
		t.Errorf("an Import refused for the clock stored secrets %v", names)
	}
}
