package server

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// newTaskForm is the New task form's fields for a task of project p named
// name running script every second in UTC.
func newTaskForm(csrf, p, name, script string) url.Values {
	return url.Values{"csrf": {csrf}, "project": {p}, "task": {name}, "script": {script}, "cron": {"* * * * * *"}, "timezone": {"UTC"}}
}

// applyPreviewed confirms the preview page shows, as its Apply button
// does: the file and the form's hidden fields, sent back as they are.
func applyPreviewed(t *testing.T, c *http.Client, base, csrf, preview string) string {
	t.Helper()
	_, form, ok := strings.Cut(preview, `action="/definitions/apply"`)
	if !ok {
		t.Fatalf("the preview offers no apply:\n%s", preview)
	}
	form, _, _ = strings.Cut(form, "</form>")
	_, yaml, _ := strings.Cut(form, `<textarea name="yaml" hidden>`)
	yaml, _, _ = strings.Cut(yaml, "</textarea>")
	values := url.Values{"csrf": {csrf}, "yaml": {html.UnescapeString(yaml)}}
	if strings.Contains(form, `name="origin" value="newtask"`) {
		values.Set("origin", "newtask")
	}
	resp, page := httpcall.Form(t, c, http.MethodPost, base+"/definitions/apply?lang=en", values)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("apply of the preview: %d, want 200 applied:\n%s", resp.StatusCode, page)
	}
	return page
}

// A user with no definitions file creates a project, a task and the cron
// trigger that runs it from the console's New task form: the preview says
// what would be created, nothing is created before the confirmation, and
// once confirmed the page leads to the project's triggers, and the trigger
// fires and its Run runs the script — a script of several lines too, whose
// CR LF line breaks (a browser's) are stored as a file's LF.
func TestTheNewTaskFormCreatesAProjectTaskAndTriggerThatRun(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, from := range []string{"/definitions", "/triggers"} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+from+"?lang=en", nil); !strings.Contains(page, `href="/definitions/new"`) {
			t.Errorf("%s offers no New task to an admin:\n%s", from, page)
		}
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/new?lang=en", nil); resp.StatusCode != http.StatusOK ||
		!strings.Contains(page, `id="nt-script"`) || !strings.Contains(page, `<option value="shop">`) || !strings.Contains(page, `name="timeout" value="" placeholder="1h"`) {
		t.Fatalf("the New task form: %d, want 200 with its fields, the projects to choose from and the timeout an empty field means:\n%s", resp.StatusCode, page)
	}
	// Two lines, as a browser sends a textarea's: ended by CR LF.
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=en", newTaskForm(csrf, "backup", "hello", "for i in 1 2; do echo made-in-the-form; done\r\necho done\r\n"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="def-preview"`) || strings.Count(preview, `class="change-created"`) != 3 {
		t.Fatalf("the form's preview: %d, want 200 creating the project, its task and its trigger:\n%s", resp.StatusCode, preview)
	}
	if _, err := site.srv.store.ProjectDefinitions(t.Context(), "backup", 10); qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		t.Fatalf("after the preview the project is there (%v): nothing is created before the confirmation", err)
	}
	if applied := applyPreviewed(t, c, site.base, csrf, preview); !strings.Contains(applied, `<a id="def-next" href="/triggers?project=backup">Open the triggers of backup`) {
		t.Errorf("the applied page does not lead to the project's triggers:\n%s", applied)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "backup", 10)
	if err != nil || len(d.Tasks) != 1 || len(d.Triggers) != 1 || d.Triggers[0].Spec.Name != "hello" || d.Tasks[0].Spec.Command.Script != "for i in 1 2; do echo made-in-the-form; done\necho done" {
		t.Fatalf("after the apply: %+v, %v; want project backup with task hello (its script's lines ended by LF, as a file's) and its trigger hello", d, err)
	}
	waitFor(t, "the new trigger's Run to succeed", 10*time.Second, func() bool {
		list, _, err := site.srv.store.RunList(t.Context(), run.ListParams{TriggerID: d.Triggers[0].TriggerID, State: run.Succeeded, Limit: 1})
		return err == nil && len(list) == 1
	})
}

// The form adds its task and trigger to an existing project and nothing
// else: the project's other task and trigger stay as they were, and the
// preview lists only the two new entries, with no note that the file
// leaves the others out (a note about a file the user wrote).
func TestTheNewTaskFormLeavesTheProjectsOtherEntriesAsTheyAre(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	before, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	form := newTaskForm(csrf, "shop", "cleanup", "echo clean")
	form.Set("timeout", "5m")
	form.Set("trigger", "cleanup-often")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=en", form)
	if resp.StatusCode != http.StatusOK || strings.Count(preview, `class="change-created"`) != 2 || strings.Contains(preview, "change-updated") ||
		strings.Contains(preview, `id="def-notes"`) {
		t.Fatalf("the form's preview in project shop: %d, want 200 creating two entries, changing none, noting nothing:\n%s", resp.StatusCode, preview)
	}
	if page := applyPreviewed(t, c, site.base, csrf, preview); strings.Contains(page, `id="def-notes"`) {
		t.Errorf("the apply's result notes something of the form's file:\n%s", page)
	}
	after, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil || len(after.Tasks) != 2 || len(after.Triggers) != 2 {
		t.Fatalf("project shop after the apply: %+v, %v; want two tasks and two triggers", after, err)
	}
	for _, tg := range after.Triggers {
		switch tg.Spec.Name {
		case "nightly":
			if tg.Revision != before.Triggers[0].Revision {
				t.Errorf("trigger nightly is at revision %d after the form's apply, was %d: the form changed it", tg.Revision, before.Triggers[0].Revision)
			}
		case "cleanup-often":
		default:
			t.Errorf("unexpected trigger %q", tg.Spec.Name)
		}
	}
	for _, tk := range after.Tasks {
		if tk.Spec.Name == "cleanup" && tk.Spec.Command.TimeoutMs != (5*time.Minute).Milliseconds() {
			t.Errorf("task cleanup's timeout is %d ms, want the form's 5m", tk.Spec.Command.TimeoutMs)
		}
	}
}

// A name the project already has is refused on the form, in the page's
// language, saying what to do, and the form keeps what was typed: the
// form's file would otherwise change an entry the form never showed.
func TestTheNewTaskFormRefusesANameItsProjectHasInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for lang, want := range map[string]string{
		"zh": "项目“shop”已有名为“report”的任务：请换一个名称，或在项目的定义文件中修改那个任务。",
		"en": "Project &#34;shop&#34; already has a task named &#34;report&#34;: choose another name",
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang="+lang, newTaskForm(csrf, "shop", "report", "echo kept-as-typed"))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) || !strings.Contains(page, "echo kept-as-typed</textarea>") {
			t.Errorf("a task name shop has, in %s: %d, want 400 saying %q with the script kept:\n%s", lang, resp.StatusCode, want, page)
		}
	}
	form := newTaskForm(csrf, "shop", "other", "echo")
	form.Set("trigger", "nightly")
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=en", form); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(page, "already has a trigger named &#34;nightly&#34;") {
		t.Errorf("a trigger name shop has: %d, want 400 naming it:\n%s", resp.StatusCode, page)
	}
}

// A field the form's file cannot take is said on the form in the page's
// language, naming the field, as the definitions page says it (without a
// line of a file the user never saw); a field left empty is asked for.
func TestTheNewTaskFormSaysWhichFieldIsWrongInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, f := range []struct {
		what, field, value, lang, want string
	}{
		{"a cron field out of range", "cron", "0 3 * * 7", "zh", "cron 表达式的星期字段“7”无效"},
		{"a zone that does not exist", "timezone", "Asia/Beijing", "zh", "未知的 IANA 时区“Asia/Beijing”"},
		{"a timeout in weeks", "timeout", "1w", "en", "is not a duration from 1ms to 365d"},
		{"a project name none can have", "project", "My Project", "en", "&#34;My Project&#34; must use lower-case letters"},
		{"a task name none can have", "task", "Daily Report", "zh", "Daily Report"},
		{"an empty script", "script", "  ", "zh", "脚本（由 /bin/sh 运行）：此项必填，请填写。"},
	} {
		form := newTaskForm(csrf, "shop", "fresh", "echo")
		form.Set(f.field, f.value)
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang="+f.lang, form)
		_, errs, _ := strings.Cut(page, `id="nt-errors"`)
		errs, _, _ = strings.Cut(errs, "</div>")
		kept := `value="` + html.EscapeString(f.value) + `"`
		if f.field == "script" {
			kept = `name="task" value="fresh"`
		}
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errs, f.want) || strings.Contains(errs, `class="line"`) || !strings.Contains(page, kept) {
			t.Errorf("%s: %d, want 400 saying %q on the form, no line, the fields kept (%s):\n%s", f.what, resp.StatusCode, f.want, kept, page)
		}
	}
	if d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10); err != nil || len(d.Tasks) != 1 || len(d.Triggers) != 1 {
		t.Fatalf("project shop after the refused forms: %d tasks, %d triggers, %v; want its one task and trigger only", len(d.Tasks), len(d.Triggers), err)
	}
}

// A form with several fields wrong says every one of them at once, in
// the page's language, each naming what it is about: a project name that
// cannot be one among them, which once hid every other mistake until it
// was mended.
func TestTheNewTaskFormSaysEveryWrongFieldAtOnce(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	form := url.Values{"csrf": {csrf}, "project": {"Reports Team"}, "task": {"daily report"}, "script": {"echo"}, "cron": {"0 25 * * *"},
		"timezone": {"Asia/Shangai"}, "timeout": {"90"}}
	for lang, want := range map[string][]string{
		"en": {"&#34;Reports Team&#34; must use lower-case letters", "&#34;daily report&#34; must use lower-case letters", "hour field &#34;25&#34;",
			"unknown IANA timezone &#34;Asia/Shangai&#34;", "&#34;90&#34; is not a duration"},
		"zh": {"项目：“Reports Team”只能使用小写字母", "任务名称：“daily report”只能使用小写字母", "小时字段“25”无效", "未知的 IANA 时区“Asia/Shangai”", "“90”无效"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang="+lang, form)
		_, errs, _ := strings.Cut(page, `id="nt-errors"`)
		errs, _, _ = strings.Cut(errs, "</div>")
		for _, w := range want {
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errs, w) {
				t.Errorf("%s: %d, want 400 saying %q among the form's errors:\n%s", lang, resp.StatusCode, w, errs)
			}
		}
	}
}

// Each error of the form starts with the label of the field it is
// about, in the page's language, not with the file's field the form
// wrote it to (task.timeout), which its user never saw; a trigger named
// after its task is not said wrong a second time.
func TestTheNewTaskFormStartsEachErrorWithItsFieldsLabel(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	form := url.Values{"csrf": {csrf}, "project": {"Reports Team"}, "task": {"daily report"}, "script": {"echo"}, "cron": {"0 25 * * *"},
		"timezone": {"Local"}, "timeout": {"1w"}}
	for lang, want := range map[string][]string{
		"en": {"<li>Project: &#34;Reports Team&#34; must use", "<li>Task name: &#34;daily report&#34; must use", "<li>Timeout: &#34;1w&#34; is not a duration",
			"<li>Schedule (cron): cron expression &#34;0 25 * * *&#34;: hour field", "<li>Time zone (IANA name): cron timezone &#34;Local&#34;"},
		"zh": {"<li>项目：“Reports Team”只能使用", "<li>任务名称：“daily report”只能使用", "<li>超时：“1w”无效", "<li>计划（cron）：cron 表达式的小时字段“25”无效",
			"<li>时区（IANA 名称）：时区不能写“Local”"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang="+lang, form)
		_, errs, _ := strings.Cut(page, `id="nt-errors"`)
		errs, _, _ = strings.Cut(errs, "</div>")
		for _, w := range want {
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errs, w) {
				t.Errorf("%s: %d, want 400 with an error starting %q:\n%s", lang, resp.StatusCode, w, errs)
			}
		}
		if n := strings.Count(errs, "<li>"); n != len(want) || strings.Contains(errs, "task.") || strings.Contains(errs, "trigger.") ||
			strings.Contains(errs, "&#34;daily report&#34;:") || strings.Contains(errs, "任务“daily report”") {
			t.Errorf("%s: %d errors, want %d, none naming the file's fields or entries:\n%s", lang, n, len(want), errs)
		}
	}
	form.Set("trigger", "Nightly Run")
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=zh", form)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "<li>触发器名称：“Nightly Run”只能使用") {
		t.Errorf("a trigger name none can have, in zh: %d, want 400 with an error starting with the trigger name's label:\n%s", resp.StatusCode, page)
	}
}

// A task is not added to an archived project: the form says so, and
// what to do, and the project stays archived with what it had. (A file
// of the new task alone, without the project's status, would have set
// the project active and its triggers firing again.)
func TestTheNewTaskFormLeavesAnArchivedProjectArchived(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	site.archiveShop(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=en", newTaskForm(csrf, "shop", "later", "echo"))
	_, errs, _ := strings.Cut(page, `id="nt-errors"`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errs, "the project is archived; set its status to active before publishing to it") {
		t.Fatalf("the form in archived project shop: %d, want 400 on the form saying the project is archived:\n%s", resp.StatusCode, page)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil || d.Project.Status != project.Archived || len(d.Tasks) != 1 {
		t.Fatalf("project shop after the form: status %s, %d tasks, %v; want it archived with its one task", d.Project.Status, len(d.Tasks), err)
	}
}
