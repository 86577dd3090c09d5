package server

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// pulledScripts is a subscription's folder as the panel's ql repo pulls
// it: scripts whose headers give a cron and a Chinese title, a
// TypeScript one, one of no cron and a backup the blacklist leaves out.
var pulledScripts = map[string]string{
	"owner_repo/jd_bean.js":       "/*\n京豆签到\ncron \"5 0 * * *\" jd_bean.js, tag=京豆签到\n*/\nconst $ = new Env('京豆签到');\n",
	"owner_repo/jx_farm.py":       "# cron: 0 */2 * * *\n# new Env('京喜农场')\nprint('farm')\n",
	"owner_repo/sub/jd_speed.sh":  "#!/bin/bash\n# cron: 30 7 * * *\necho speed\n",
	"owner_repo/util.js":          "module.exports = {}\n",
	"owner_repo/jd_tool.ts":       "// cron: 0 8 * * *\nexport {}\n",
	"owner_repo/backup/jd_old.js": "// cron: 0 9 * * *\nconst $ = new Env('旧脚本');\n",
}

// writePulledScripts writes pulledScripts into the site's scripts folder.
func writePulledScripts(t *testing.T, site *consoleSite) {
	t.Helper()
	for p, text := range pulledScripts {
		full := filepath.Join(site.srv.cfg.ScriptsDir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptsImportForm is the Tasks from these scripts form's fields for the
// folder path into project p in Asia/Shanghai.
func scriptsImportForm(csrf, path, p, match, exclude string) url.Values {
	return url.Values{"csrf": {csrf}, "path": {path}, "project": {p}, "timezone": {"Asia/Shanghai"}, "match": {match}, "exclude": {exclude}}
}

// A folder of the Scripts page makes a task and a trigger per script
// whose header gives a cron, as `ql crontab scripts` does, previewed as
// the definitions page previews a file with the scripts made no task of
// and why; nothing is published before the confirm, and previewing the
// folder again once applied publishes nothing new.
func TestTheScriptsPageMakesTasksFromAFoldersScriptHeadersPreviewedBeforePublishing(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	writePulledScripts(t, site)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/scripts?path=owner_repo&lang=en", nil); !strings.Contains(page, `href="/scripts/tasks?path=owner_repo"`) {
		t.Fatalf("the Scripts page offers no tasks from the folder's scripts:\n%s", page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/scripts/tasks?path=owner_repo&lang=en", nil); resp.StatusCode != http.StatusOK ||
		!strings.Contains(page, `name="path" value="owner_repo"`) || !strings.Contains(page, `id="sti-match"`) {
		t.Fatalf("the form: %d, want 200 with the folder and the match field:\n%s", resp.StatusCode, page)
	}
	form := scriptsImportForm(csrf, "owner_repo", "jd", "", "backup")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=en", form)
	// The project, and a task and a trigger for each of the 4 scripts.
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="def-preview"`) || strings.Count(preview, `class="change-created"`) != 9 || !strings.Contains(preview, `id="def-confirm"`) {
		t.Fatalf("the preview: %d, want 200 creating the project and 4 tasks and triggers:\n%s", resp.StatusCode, preview)
	}
	for _, want := range []string{"jd_bean", "jx_farm", "sub-jd_speed", "util.js", "jd_tool.ts", "its task is written as tsx jd_tool.ts", "npm install -g tsx"} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	if strings.Contains(preview, "jd_old") {
		t.Errorf("the preview holds the script the blacklist leaves out:\n%s", preview)
	}
	if _, err := site.srv.store.ProjectByName(t.Context(), "jd"); err == nil {
		t.Fatal("project jd exists before the confirm")
	}
	if resp, page := confirmPreview(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("the confirm: %d, want 200 applied:\n%s", resp.StatusCode, page)
	}
	doc, err := site.srv.store.ProjectDefinitions(t.Context(), "jd", 10)
	if err != nil {
		t.Fatal(err)
	}
	titles := doc.Titles.Tasks
	if len(doc.Tasks) != 4 || len(doc.Triggers) != 4 {
		t.Errorf("published %d tasks and %d triggers, want 4 of each", len(doc.Tasks), len(doc.Triggers))
	}
	for _, tk := range doc.Tasks {
		if !strings.HasPrefix(tk.Spec.Command.WorkingDir, site.srv.cfg.ScriptsDir) {
			t.Errorf("task %s runs in %q, outside the scripts folder %s", tk.Spec.Name, tk.Spec.Command.WorkingDir, site.srv.cfg.ScriptsDir)
		}
	}
	if titles["jd_bean"] != "京豆签到" || titles["jx_farm"] != "京喜农场" {
		t.Errorf("the published tasks' titles: %v", titles)
	}
	_, again := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=en", form)
	if strings.Contains(again, `class="change-created"`) || strings.Contains(again, `class="change-updated"`) || strings.Contains(again, `id="def-confirm"`) || !strings.Contains(again, `id="def-nothing"`) {
		t.Errorf("previewing the unchanged folder again offers changes:\n%s", again)
	}
}

// The match and exclude fields are the subscription's whitelist and
// blacklist of paths; one that is no regular expression is refused
// beside its field, in the page's language, and nothing is read.
func TestTheScriptsTasksFormKeepsOnlyMatchedPathsAndRefusesABadExpression(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	writePulledScripts(t, site)
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=en", scriptsImportForm(csrf, "", "jd", "jd_", "backup|sub/"))
	if strings.Count(preview, `class="change-created"`) != 5 || !strings.Contains(preview, "owner_repo-jd_bean") || !strings.Contains(preview, "owner_repo-jd_tool") || strings.Contains(preview, "jx_farm") || strings.Contains(preview, "jd_speed") {
		t.Errorf("the scripts folder's root with match jd_ and exclude backup|sub/: want only jd_bean's and jd_tool's tasks, triggers and the project:\n%s", preview)
	}
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=zh", scriptsImportForm(csrf, "owner_repo", "jd", "jd_(", ""))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="sti-match-error"`) || !strings.Contains(page, "这不是有效的正则表达式") || strings.Contains(page, `id="def-preview"`) {
		t.Fatalf("a bad match expression: %d, want 400 said beside the field in Chinese:\n%s", resp.StatusCode, page)
	}
	if _, err := site.srv.store.ProjectByName(t.Context(), "jd"); err == nil {
		t.Fatal("project jd exists after previews only")
	}
}

// The folder is a path of the scripts folder, resolved as the Scripts
// page resolves it: a path leading outside it is refused, whether given
// to the form or to its preview, and no file outside is read.
func TestTheScriptsTasksFormRefusesAPathOutsideTheScriptsFolder(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	outside := filepath.Join(site.dir, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "jd_x.js"), []byte("// cron: 0 1 * * *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(site.srv.cfg.ScriptsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(site.srv.cfg.ScriptsDir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../outside", outside, "link", "/etc"} {
		if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/scripts/tasks?lang=en&path="+url.QueryEscape(p), nil); resp.StatusCode < 400 {
			t.Errorf("the form of %q: %d, want a refusal:\n%s", p, resp.StatusCode, page)
		}
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=en", scriptsImportForm(csrf, p, "jd", "", ""))
		if resp.StatusCode < 400 || strings.Contains(page, "jd_x") {
			t.Errorf("the preview of %q: %d, want a refusal reading nothing:\n%s", p, resp.StatusCode, page)
		}
	}
}

// An account bound to a project may not make tasks from scripts: the
// folder's tasks may go in any project, and the scripts are every
// project's.
func TestABoundUserCannotMakeTasksFromScripts(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	writePulledScripts(t, site)
	if _, err := account.Create(t.Context(), site.srv.store, "tester", ids.New(), "shop-ops", account.Operator, ownerPassword, "shop"); err != nil {
		t.Fatal(err)
	}
	c := consoleClient(t)
	if status, loc, msg := site.signInUser(t, c, "shop-ops", ownerPassword); status != http.StatusSeeOther {
		t.Fatalf("signing in as shop-ops: %d to %q (%q)", status, loc, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	csrf := csrfField.FindStringSubmatch(page)[1]
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/scripts/tasks?path=owner_repo&lang=en", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the form to a bound operator: %d, want 403:\n%s", resp.StatusCode, page)
	}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=en", scriptsImportForm(csrf, "owner_repo", "shop", "", "")); resp.StatusCode != http.StatusForbidden || strings.Contains(page, "def-preview") {
		t.Errorf("the preview to a bound operator: %d, want 403:\n%s", resp.StatusCode, page)
	}
}

// The form and its preview speak Chinese on a Chinese page, the scripts
// made no task of and the note of the TypeScript one included.
func TestTheScriptsTasksPagesSpeakChinese(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	writePulledScripts(t, site)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/scripts/tasks?path=owner_repo&lang=zh", nil); !strings.Contains(page, "从脚本生成任务") || !strings.Contains(page, "排除匹配的路径") {
		t.Errorf("the form in Chinese:\n%s", page)
	}
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=zh", scriptsImportForm(csrf, "owner_repo", "jd", "", "backup"))
	for _, want := range []string{"脚本头部没有写 cron", "它的任务写成 tsx jd_tool.ts", "npm install -g tsx", "有 4 个脚本各生成一个任务和一个触发器", "返回表单"} {
		if !strings.Contains(preview, want) {
			t.Errorf("the Chinese preview lacks %q:\n%s", want, preview)
		}
	}
	if strings.Contains(preview, "write its task by hand") || strings.Contains(preview, "its task is written as") {
		t.Errorf("the Chinese preview says why in English:\n%s", preview)
	}
}

// A file the store refuses at its confirm — here, its project archived
// between the preview and the confirm — brings the Tasks from these
// scripts form back with the store's refusal and the fields as given,
// and publishes nothing of it: the apply is one transaction, so none of
// the folder's tasks or triggers is in the project.
func TestTheScriptsTasksFormShowsTheStoresRefusalAtConfirmAndPublishesNothing(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	writePulledScripts(t, site)
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/scripts/tasks/preview?lang=en", scriptsImportForm(csrf, "owner_repo", "shop", "", "backup"))
	if strings.Count(preview, `class="change-created"`) != 8 {
		t.Fatalf("the preview into shop: want 4 tasks and 4 triggers created:\n%s", preview)
	}
	before, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	site.archiveShop(t)
	resp, page := confirmPreview(t, c, site.base, preview)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="sti-errors"`) || !strings.Contains(page, "archived") || strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("the confirm into an archived project: %d, want 400 on the form with the store's refusal:\n%s", resp.StatusCode, page)
	}
	for _, want := range []string{`name="path" value="owner_repo"`, `value="backup"`, `id="sti-fix"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the form brought back lacks %s:\n%s", want, page)
		}
	}
	after, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Tasks) != len(before.Tasks) || len(after.Triggers) != len(before.Triggers) {
		t.Errorf("the refused confirm published part of the file: shop has %d tasks and %d triggers, had %d and %d", len(after.Tasks), len(after.Triggers), len(before.Tasks), len(before.Triggers))
	}
	for _, tk := range after.Tasks {
		if strings.Contains(tk.Spec.Name, "jd_") || strings.Contains(tk.Spec.Name, "jx_") {
			t.Errorf("the refused confirm published task %s", tk.Spec.Name)
		}
	}
}
