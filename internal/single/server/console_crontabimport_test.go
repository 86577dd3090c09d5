package server

import (
	"bytes"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// panelCrontab is a crontab as the qinglong panel keeps its task list
// (crontab.list): six time fields (seconds first) beside five, its task
// command, its subscription (a pull task) and its log deletion, which is
// not converted.
const panelCrontab = "0 5 0 * * * task jd_bean_sign.js\n" +
	"*/30 * * * * node /ql/scripts/check.js\n" +
	"33 8 * * * ql repo https://example.com/o/scripts.git \"jd_\" \"\" \"\"\n" +
	"57 13 * * * ID=11 ql rmlog 7\n" +
	"0 0 3 * * 7 /ql/scripts/backup.sh\n"

// importForm is the crontab import form's fields for text into project p
// in Asia/Shanghai.
func importForm(csrf, p, text string) url.Values {
	return url.Values{"csrf": {csrf}, "project": {p}, "timezone": {"Asia/Shanghai"}, "crontab": {text}}
}

// uploadForm sends fields and, as the file input field, file named name
// holding text, as a browser posts a form of enctype multipart/form-data.
func uploadForm(t *testing.T, c *http.Client, u string, fields url.Values, field, name, text string) (*http.Response, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	fw, err := mw.CreateFormFile(field, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(fw, text); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// hiddenTextarea is a form's hidden text area (the preview's file).
var hiddenTextarea = regexp.MustCompile(`(?s)<textarea name="([^"]+)" hidden>(.*?)</textarea>`)

// confirmPreview sends the preview page's apply form as its Apply button
// does: every hidden field as the page holds it.
func confirmPreview(t *testing.T, c *http.Client, base, preview string) (*http.Response, string) {
	t.Helper()
	_, form, ok := strings.Cut(preview, `action="/definitions/apply"`)
	if !ok {
		t.Fatalf("the preview offers no apply:\n%s", preview)
	}
	form, _, _ = strings.Cut(form, "</form>")
	values := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(form, -1) {
		values.Add(m[1], html.UnescapeString(m[2]))
	}
	for _, m := range hiddenTextarea.FindAllStringSubmatch(form, -1) {
		values.Add(m[1], html.UnescapeString(m[2]))
	}
	return httpcall.Form(t, c, http.MethodPost, base+"/definitions/apply?lang=en", values)
}

// A crontab pasted on the import page (the qinglong panel's crontab.list)
// is converted by the converter `ql crontab convert` uses and previewed
// as the definitions page previews a file: what would be created, and
// each line not converted or converted with a difference, with why.
// Nothing is published before the confirm; once confirmed, the entries
// are the project's tasks and triggers, at their zone, seconds first.
func TestACrontabPastedInTheConsoleIsPreviewedBeforeAnythingIsPublished(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, from := range []string{"/definitions?lang=en", "/triggers?project=shop&lang=en"} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+from, nil); !strings.Contains(page, `href="/definitions/import`) {
			t.Errorf("%s offers no crontab import to an owner:\n%s", from, page)
		}
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/import?project=panel&lang=en", nil); resp.StatusCode != http.StatusOK ||
		!strings.Contains(page, `id="imp-crontab"`) || !strings.Contains(page, `id="imp-project" name="project" list="imp-projects" value="panel"`) || !strings.Contains(page, `<option value="shop">`) {
		t.Fatalf("the import form: %d, want 200 with the crontab's field, project panel chosen and the projects to choose from:\n%s", resp.StatusCode, page)
	}
	if resp, body := uploadForm(t, c, site.base+"/definitions/import/preview?lang=en", importForm("forged", "panel", ""), "file", "crontab.list", panelCrontab); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "CSRF") {
		t.Errorf("an import uploaded without the session's CSRF token: %d, want 403 naming CSRF:\n%s", resp.StatusCode, body)
	}
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "panel", panelCrontab))
	// The project, and a task and a trigger for each of the 4 entries.
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="def-preview"`) || strings.Count(preview, `class="change-created"`) != 9 || !strings.Contains(preview, `id="def-confirm"`) {
		t.Fatalf("the import's preview: %d, want 200 creating the project and 4 tasks and triggers, with the confirm:\n%s", resp.StatusCode, preview)
	}
	text := html.UnescapeString(preview)
	for _, want := range []string{
		"4 entries of the crontab are converted into a task and a trigger each.",
		"1 line is not converted, so it is not imported",
		`<tr class="imp-not-converted"><td data-label="Line">4</td>`,
		"ql rmlog is the qinglong panel's command",
		`<tr class="imp-note"><td data-label="Line">3</td>`,
		`ql repo becomes a task pulling https://example.com/o/scripts.git into "$QL_SCRIPTS_DIR/o_scripts"`,
		`<tr class="imp-converted-but"><td data-label="Line">1</td>`,
		"task is the qinglong panel's command",
		"six time fields are read as seconds",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the import's preview lacks %q:\n%s", want, preview)
		}
	}
	if _, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10); qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		t.Fatalf("after the preview project panel is there (%v): nothing is published before the confirm", err)
	}
	if resp, page := confirmPreview(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("the import's confirm: %d, want 200 applied:\n%s", resp.StatusCode, page)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10)
	if err != nil || len(d.Tasks) != 4 || len(d.Triggers) != 4 {
		t.Fatalf("project panel after the confirm: %+v, %v; want 4 tasks and 4 triggers", d, err)
	}
	crons := map[string]string{}
	for _, tg := range d.Triggers {
		crons[tg.Spec.Name] = tg.Spec.Cron.Expression + " " + tg.Spec.Cron.Timezone
	}
	if crons["jd_bean_sign"] != "0 5 0 * * * Asia/Shanghai" || crons["backup"] != "0 0 3 * * 0 Asia/Shanghai" || crons["check"] != "*/30 * * * * Asia/Shanghai" {
		t.Errorf("the imported triggers' schedules: %v; want the crontab's, seconds first, Sunday as 0, in Asia/Shanghai", crons)
	}
}

// A crontab imported a second time, unchanged (here uploaded as a file),
// is previewed as publishing nothing new, saying so, with no confirm; a
// confirm sent all the same leaves every revision as it was.
func TestImportingTheSameCrontabTwicePublishesNothingNew(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "panel", panelCrontab))
	if resp, page := confirmPreview(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("the first import's confirm: %d:\n%s", resp.StatusCode, page)
	}
	before, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10)
	if err != nil {
		t.Fatal(err)
	}
	fields := url.Values{"csrf": {csrf}, "project": {"panel"}, "timezone": {"Asia/Shanghai"}}
	resp, again := uploadForm(t, c, site.base+"/definitions/import/preview?lang=en", fields, "file", "crontab.list", strings.ReplaceAll(panelCrontab, "\n", "\r\n"))
	if resp.StatusCode != http.StatusOK || strings.Contains(again, "change-created") || strings.Contains(again, "change-updated") || strings.Contains(again, `id="def-confirm"`) ||
		!strings.Contains(again, "importing it again publishes nothing new") {
		t.Fatalf("the second import's preview: %d, want 200 changing nothing, saying so, without a confirm:\n%s", resp.StatusCode, again)
	}
	if resp, page := confirmPreview(t, c, site.base, again); resp.StatusCode != http.StatusOK || strings.Contains(page, "change-created") || strings.Contains(page, "change-updated") {
		t.Fatalf("a confirm of the second import: %d, want nothing created or updated:\n%s", resp.StatusCode, page)
	}
	after, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10)
	if err != nil || len(after.Tasks) != len(before.Tasks) || len(after.Triggers) != len(before.Triggers) {
		t.Fatalf("project panel after the second import: %+v, %v", after, err)
	}
	for i, tg := range after.Triggers {
		if tg.Revision != before.Triggers[i].Revision {
			t.Errorf("trigger %s is at revision %d after the second import, was %d", tg.Spec.Name, tg.Revision, before.Triggers[i].Revision)
		}
	}
	for i, tk := range after.Tasks {
		if tk.Revision != before.Tasks[i].Revision {
			t.Errorf("task %s is at revision %d after the second import, was %d", tk.Spec.Name, tk.Revision, before.Tasks[i].Revision)
		}
	}
}

// A crontab of which no line converts stays on the import form, which
// says why of each line and creates nothing (its file would create the
// project alone); a form without a zone or a crontab says which field is
// missing, in the page's language.
func TestACrontabWithNothingToImportStaysOnTheImportForm(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=zh", importForm(csrf, "panel", "33 8 * * * ql rmlog 7\n@reboot /bin/true\n"))
	text := html.UnescapeString(page)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(text, "crontab 中没有任何行被转换") || !strings.Contains(text, "ql rmlog 是青龙面板自己的命令") ||
		!strings.Contains(text, "未转换") || !strings.Contains(page, `id="imp-crontab"`) {
		t.Fatalf("a crontab of nothing to import, in Chinese: %d, want 400 on the form saying why of each line:\n%s", resp.StatusCode, page)
	}
	if _, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10); qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		t.Fatalf("project panel exists after an import of nothing (%v)", err)
	}
	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", url.Values{"csrf": {csrf}, "project": {"panel"}})
	if text := html.UnescapeString(page); resp.StatusCode != http.StatusBadRequest || !strings.Contains(text, "Crontab: paste a crontab or choose a file.") ||
		!strings.Contains(text, "Time zone (IANA name): this field is required") {
		t.Fatalf("an import form without a crontab or a zone: %d, want 400 naming both:\n%s", resp.StatusCode, page)
	}
}

// Importing a crontab publishes definitions, which is an owner's, and an
// owner is never bound: a user bound to project alpha is refused the
// import form and its preview, into another project or its own, and
// nothing is published; nor may it download another project's
// definitions.
func TestABoundUserCannotImportIntoAnotherProject(t *testing.T) {
	t.Parallel()
	site, c, csrf, _, _, _ := boundSite(t)
	before, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/import?project=shop&lang=en", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the import form for a user bound to alpha: %d, want 403:\n%s", resp.StatusCode, page)
	}
	for _, p := range []string{"shop", "alpha"} {
		if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, p, "* * * * * echo hi > /tmp/x\n")); resp.StatusCode != http.StatusForbidden ||
			strings.Contains(page, `id="def-confirm"`) {
			t.Errorf("an import into %s by a user bound to alpha: %d, want 403 without a preview:\n%s", p, resp.StatusCode, page)
		}
		if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply?lang=en", url.Values{"csrf": {csrf}, "origin": {"crontab"},
			"yaml": {"project: " + p + "\ntasks:\n  - name: echo\n    script: echo hi\n"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("an import's confirm into %s by a user bound to alpha: %d, want 403", p, resp.StatusCode)
		}
	}
	if resp, body := httpcall.Form(t, c, http.MethodGet, site.base+"/projects/shop/definitions.yaml", nil); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "name: report") {
		t.Errorf("shop's definitions downloaded by a user bound to alpha: %d, want 403 without them:\n%s", resp.StatusCode, body)
	}
	after, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil || len(after.Tasks) != len(before.Tasks) || after.Tasks[0].Revision != before.Tasks[0].Revision {
		t.Fatalf("shop after a bound user's imports: %+v, %v; want it as it was", after, err)
	}
	alpha, err := site.srv.store.ProjectDefinitions(t.Context(), "alpha", 10)
	if err != nil || len(alpha.Tasks) != 1 {
		t.Fatalf("alpha after its bound user's imports: %+v, %v; want its one task alone", alpha, err)
	}
}

// A project's definitions downloaded from its page are the file `ql
// export` writes, named after the project; uploaded on the definitions
// page, the file's preview changes nothing and its apply leaves every
// revision as it was.
func TestADownloadedDefinitionsFileAppliesBackUnchanged(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, from := range []string{"/triggers?project=shop&lang=en", "/definitions?project=shop&lang=en"} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+from, nil); !strings.Contains(page, `href="/projects/shop/definitions.yaml" download>Download definitions (YAML)</a>`) {
			t.Errorf("%s offers no download of shop's definitions:\n%s", from, page)
		}
	}
	resp, file := httpcall.Form(t, c, http.MethodGet, site.base+"/projects/shop/definitions.yaml", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/yaml; charset=utf-8" || resp.Header.Get("Content-Disposition") != `attachment; filename="shop.yaml"` {
		t.Fatalf("the download: %d %q %q, want 200 a YAML attachment shop.yaml:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), file)
	}
	ex, err := apply.ExportProject(t.Context(), site.srv.store, "shop", nil)
	if err != nil || file != string(ex.YAML) {
		t.Fatalf("the download is not what `ql export shop` writes (%v):\n%s\nwant:\n%s", err, file, ex.YAML)
	}
	before, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	resp, preview := uploadForm(t, c, site.base+"/definitions/preview?lang=en", url.Values{"csrf": {csrf}}, "file", "shop.yaml", file)
	if resp.StatusCode != http.StatusOK || strings.Count(preview, `class="change-unchanged"`) != 3 || !strings.Contains(preview, `id="def-nothing"`) {
		t.Fatalf("the downloaded file uploaded: %d, want a preview of the project, its task and trigger unchanged:\n%s", resp.StatusCode, preview)
	}
	if resp, page := confirmPreview(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) || strings.Count(page, `class="change-unchanged"`) != 3 {
		t.Fatalf("the downloaded file applied: %d, want every entry unchanged:\n%s", resp.StatusCode, page)
	}
	after, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil || after.Tasks[0].Revision != before.Tasks[0].Revision || after.Triggers[0].Revision != before.Triggers[0].Revision {
		t.Fatalf("shop after its downloaded file applied: %+v, %v; want its revisions as they were", after, err)
	}
}

// The import's preview goes back to the import form with the crontab,
// the project, the zone and the system choice as they were given, not to
// the converted file; the preview in Chinese says why of each line in
// Chinese.
func TestTheImportPreviewGoesBackToTheCrontabAsGiven(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	form := importForm(csrf, "panel", panelCrontab)
	form.Set("timezone", "Europe/Berlin")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=zh", form)
	text := html.UnescapeString(preview)
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, "ql repo（青龙面板的订阅）转换为一个任务") || !strings.Contains(text, "task 是青龙面板的命令") || !strings.Contains(text, "已转换，但") {
		t.Fatalf("the import's preview in Chinese: %d, want why of each line in Chinese:\n%s", resp.StatusCode, preview)
	}
	_, back, ok := strings.Cut(preview, `action="/definitions/apply"`)
	if !ok || !strings.Contains(back, `formaction="/definitions/import/preview" name="back" value="1"`) {
		t.Fatalf("the import's preview has no way back to the crontab:\n%s", preview)
	}
	values := url.Values{"back": {"1"}}
	back, _, _ = strings.Cut(back, "</form>")
	for _, m := range hiddenInput.FindAllStringSubmatch(back, -1) {
		values.Add(m[1], html.UnescapeString(m[2]))
	}
	for _, m := range hiddenTextarea.FindAllStringSubmatch(back, -1) {
		values.Add(m[1], html.UnescapeString(m[2]))
	}
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", values)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="imp-crontab"`) || !strings.Contains(html.UnescapeString(page), panelCrontab+"</textarea>") ||
		!strings.Contains(page, `name="timezone" value="Europe/Berlin"`) || !strings.Contains(page, `value="panel"`) {
		t.Fatalf("back from the import's preview: %d, want the form with the crontab, the project and the zone as given:\n%s", resp.StatusCode, page)
	}
	if _, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10); qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		t.Fatalf("project panel exists after going back (%v)", err)
	}
}

// The qinglong panel's crontab.list imported with the folder its scripts
// are in on this server becomes tasks that run each script with its
// interpreter in that folder, and the way back from the preview keeps the
// folder as given.
func TestAPanelCrontabImportedWithItsScriptsFolderRunsEachScriptThere(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	form := importForm(csrf, "panel", "# 0 5 0 * * * ID=3 task jd_bean_sign.js\n30 7 * * * ID=8 task checkin.py\n")
	form.Set("scriptsdir", "/srv/ql/scripts")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=zh", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(html.UnescapeString(preview), "在 /srv/ql/scripts 中运行") {
		t.Fatalf("the import's preview: %d, want 200 saying in Chinese that the scripts run in the folder:\n%s", resp.StatusCode, preview)
	}
	if !strings.Contains(preview, `<input type="hidden" name="scriptsdir" value="/srv/ql/scripts">`) {
		t.Errorf("the preview's way back forgets the scripts folder:\n%s", preview)
	}
	if resp, page := confirmPreview(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("the import's confirm: %d, want 200 applied:\n%s", resp.StatusCode, page)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10)
	if err != nil || len(d.Tasks) != 2 {
		t.Fatalf("project panel after the confirm: %+v, %v; want 2 tasks", d, err)
	}
	got := map[string]string{}
	for _, k := range d.Tasks {
		got[k.Spec.Name] = k.Spec.Command.Script + " in " + k.Spec.Command.WorkingDir
	}
	if got["jd_bean_sign"] != "node jd_bean_sign.js in /srv/ql/scripts" || got["checkin"] != "python3 -u checkin.py in /srv/ql/scripts" {
		t.Errorf("the imported tasks: %v; want node and python3 -u, in /srv/ql/scripts", got)
	}
	enabled := map[string]bool{}
	for _, tg := range d.Triggers {
		enabled[tg.Spec.Name] = tg.Spec.Enabled
	}
	if enabled["jd_bean_sign"] || !enabled["checkin"] {
		t.Errorf("the imported triggers enabled: %v; want the commented line's disabled", enabled)
	}
}

// The import form of a single node starts its scripts folder field as
// the server's scripts folder, where its Scripts page keeps the scripts
// a panel's task lines ran.
func TestTheCrontabImportFormStartsWithTheServersScriptsFolder(t *testing.T) {
	t.Parallel()
	site, c, _ := startSignedInConsoleSite(t, apitoken.Admin)
	dir := site.srv.cfg.ScriptsDir
	if dir == "" {
		t.Fatal("the test server has no scripts folder")
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/import?lang=en", nil)
	if want := `id="imp-scriptsdir" name="scriptsdir" value="` + html.EscapeString(dir) + `"`; !strings.Contains(page, want) {
		t.Fatalf("the import form lacks %s:\n%s", want, page)
	}
}
