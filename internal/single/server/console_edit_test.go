package server

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// editHidden is a hidden field of a page's form: name, value.
var editHidden = regexp.MustCompile(`<input type="hidden" name="([a-z]+)" value="([^"]*)">`)

// confirmPreviewed sends the preview page's Apply form as its button
// does: the file and every hidden field of the form, as they are.
func confirmPreviewed(t *testing.T, c *http.Client, base, preview string) (*http.Response, string) {
	t.Helper()
	_, form, ok := strings.Cut(preview, `action="/definitions/apply"`)
	if !ok {
		t.Fatalf("the preview offers no apply:\n%s", preview)
	}
	form, _, _ = strings.Cut(form, "</form>")
	values := url.Values{}
	for _, m := range editHidden.FindAllStringSubmatch(form, -1) {
		values.Add(m[1], html.UnescapeString(m[2]))
	}
	_, yaml, _ := strings.Cut(form, `<textarea name="yaml" hidden>`)
	yaml, _, _ = strings.Cut(yaml, "</textarea>")
	values.Set("yaml", html.UnescapeString(yaml))
	return httpcall.Form(t, c, http.MethodPost, base+"/definitions/apply?lang=en", values)
}

// formFields are the hidden and text fields of the page's form posting to
// action, with its text areas, as a browser would send them.
func formFields(t *testing.T, page, action string) url.Values {
	t.Helper()
	_, form, ok := strings.Cut(page, `action="`+action+`"`)
	if !ok {
		t.Fatalf("the page has no form to %s:\n%s", action, page)
	}
	form, _, _ = strings.Cut(form, "</form>")
	values := url.Values{}
	for _, m := range editHidden.FindAllStringSubmatch(form, -1) {
		values.Set(m[1], html.UnescapeString(m[2]))
	}
	for _, m := range regexp.MustCompile(`<input id="[a-z-]+" name="([a-z]+)" value="([^"]*)"`).FindAllStringSubmatch(form, -1) {
		values.Set(m[1], html.UnescapeString(m[2]))
	}
	for _, m := range regexp.MustCompile(`(?s)<textarea id="[a-z-]+" name="([a-z]+)"[^>]*>\n?(.*?)</textarea>`).FindAllStringSubmatch(form, -1) {
		values.Set(m[1], html.UnescapeString(m[2]))
	}
	return values
}

// addOther adds task other and its trigger other to project shop through
// the New task form, and returns the revisions of shop's entries.
func addOther(t *testing.T, site *consoleSite, c *http.Client, csrf string) map[string]int64 {
	t.Helper()
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=en", newTaskForm(csrf, "shop", "other", "echo other"))
	applyPreviewed(t, c, site.base, csrf, preview)
	return revisions(t, site)
}

// revisions are project shop's tasks' and triggers' revisions by
// "task NAME" and "trigger NAME", a trigger's pin as "pin NAME".
func revisions(t *testing.T, site *consoleSite) map[string]int64 {
	t.Helper()
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, k := range d.Tasks {
		out["task "+k.Spec.Name] = k.Revision
	}
	for _, tr := range d.Triggers {
		out["trigger "+tr.Spec.Name], out["pin "+tr.Spec.Name] = tr.Revision, tr.TaskRevision
	}
	return out
}

// taskSpec is project shop's task name as stored now.
func taskSpec(t *testing.T, site *consoleSite, name string) task.Spec {
	t.Helper()
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range d.Tasks {
		if k.Spec.Name == name {
			return k.Spec
		}
	}
	t.Fatalf("project shop has no task %s", name)
	return task.Spec{}
}

// An admin changes the script a trigger runs from the trigger's page:
// the form shows the task's script and timeout, the preview says the task
// and its trigger change and nothing else (no note about the triggers
// the file leaves out), and once confirmed the trigger runs the new
// script, while the project's other task and trigger stay as they were.
func TestTheEditTaskFormChangesTheScriptItsTriggerRuns(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true")
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	before := addOther(t, site, c, csrf)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=en", nil)
	if !strings.Contains(page, `<a id="edit-task" class="button" href="/definitions/task?project=shop&amp;task=report">Edit task</a>`) {
		t.Fatalf("the trigger's page offers an admin no Edit task of its task:\n%s", page)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=shop&lang=en", nil)
	if !strings.Contains(page, `<p class="projects" id="def-edittasks">Edit a task&#39;s script: <a href="/definitions/task?project=shop&amp;task=other">other</a> <a href="/definitions/task?project=shop&amp;task=report">report</a> </p>`) {
		t.Errorf("the definitions page does not offer to edit each of the project's scripts:\n%s", page)
	}
	_, form := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report&lang=en", nil)
	fields := formFields(t, form, "/definitions/task")
	if fields.Get("script") != "true" || fields.Get("revision") != "1" || fields.Get("timeout") != "" || !strings.Contains(form, "Run by /bin/sh.") {
		t.Fatalf("the form shows %v, want task report's script at revision 1 and its default timeout:\n%s", fields, form)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	fields.Set("csrf", csrf)
	// A browser sends a text area's line breaks as CR LF.
	fields.Set("script", "echo edited \\\r\n  > "+ran+"\r\n")
	fields.Set("timeout", "5m")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task?lang=en", fields)
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="def-preview"`) || strings.Count(preview, `class="change-updated"`) != 2 ||
		strings.Contains(preview, "change-created") || strings.Contains(preview, `id="def-notes"`) || !strings.Contains(preview, `<td data-label="Name">nightly</td>`) {
		t.Fatalf("the form's preview: %d, want the task and its trigger updated, nothing else, no notes:\n%s", resp.StatusCode, preview)
	}
	if taskSpec(t, site, "report").Command.Script != "true" {
		t.Fatal("the preview changed the script: nothing may change before the confirmation")
	}
	if resp, applied := confirmPreviewed(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(applied, `id="def-applied"`) || strings.Contains(applied, `id="def-notes"`) {
		t.Fatalf("the confirmation: %d, want it applied without notes:\n%s", resp.StatusCode, applied)
	}
	spec := taskSpec(t, site, "report")
	if spec.Command.Script != "echo edited \\\n  > "+ran+"\n" || spec.Command.TimeoutMs != (5*time.Minute).Milliseconds() || spec.Command.Shell != "/bin/sh" {
		t.Errorf("task report after the edit: %+v, want the script with LF line breaks, the 5m timeout, its shell kept", spec.Command)
	}
	after := revisions(t, site)
	for _, k := range []string{"task other", "trigger other", "pin other"} {
		if after[k] != before[k] {
			t.Errorf("%s is %d after the edit, was %d: the form changed another entry", k, after[k], before[k])
		}
	}
	if after["task report"] != 2 || after["pin nightly"] != 2 {
		t.Errorf("after the edit task report is at %d and trigger nightly pins %d; want both 2", after["task report"], after["pin nightly"])
	}
	waitFor(t, "the trigger to run the edited script", 10*time.Second, func() bool {
		_, err := os.Stat(ran)
		return err == nil
	})
}

// A form sent after someone else changed the task is refused on the form,
// in the page's language, rather than overwriting that change: the form
// then shows the task as it is now, at its new revision, with the script
// that was sent beside it. A preview confirmed after such a change is
// refused the same way.
func TestTheEditTaskFormRefusesATaskChangedSinceItWasShown(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, form := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report", nil)
	stale := formFields(t, form, "/definitions/task")
	stale.Set("csrf", csrf)
	edit := func(fields url.Values, script string) string {
		t.Helper()
		f := url.Values{}
		for k, v := range fields {
			f[k] = v
		}
		f.Set("script", script)
		resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task?lang=en", f)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("an edit of the current revision: %d\n%s", resp.StatusCode, preview)
		}
		return preview
	}
	// Another user's edit, from a form opened at the same revision.
	confirmPreviewed(t, c, site.base, edit(stale, "echo theirs"))
	for lang, want := range map[string]string{
		"en": "Task &#34;report&#34; of project &#34;shop&#34; changed since you opened this form (revision 1, now 2), so it was not changed",
		"zh": "任务“report”在你打开此表单之后已被修改（当时是修订版 1，现在是修订版 2），因此没有做任何修改",
	} {
		mine := url.Values{}
		for k, v := range stale {
			mine[k] = v
		}
		mine.Set("script", "echo mine")
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task?lang="+lang, mine)
		shown := formFields(t, page, "/definitions/task")
		if resp.StatusCode != http.StatusConflict || !strings.Contains(page, want) || shown.Get("script") != "echo theirs" || shown.Get("revision") != "2" ||
			!strings.Contains(page, ">\necho mine</textarea>") {
			t.Errorf("%s: a form of revision 1 sent at revision 2: %d, want 409 saying %q, the current script at revision 2 and the one sent beside it:\n%s",
				lang, resp.StatusCode, want, page)
		}
	}
	if got := taskSpec(t, site, "report").Command.Script; got != "echo theirs" {
		t.Fatalf("task report's script is %q after the refused form, want the other user's", got)
	}
	_, form = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report", nil)
	current := formFields(t, form, "/definitions/task")
	current.Set("csrf", csrf)
	mine := edit(current, "echo mine")
	confirmPreviewed(t, c, site.base, edit(current, "echo theirs again"))
	resp, page := confirmPreviewed(t, c, site.base, mine)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, "<li>Task &#34;report&#34; of project &#34;shop&#34; changed since you opened this form (revision 2, now 3)") ||
		formFields(t, page, "/definitions/task").Get("script") != "echo theirs again" {
		t.Errorf("a preview of revision 2 confirmed at revision 3: %d, want 409 on the form with the current script:\n%s", resp.StatusCode, page)
	}
	if got := taskSpec(t, site, "report").Command.Script; got != "echo theirs again" {
		t.Errorf("task report's script is %q after the refused confirmation, want the other user's", got)
	}
}

// A task that runs a command rather than a shell script is not shown on
// the form: the page says, in its language, to edit it in the project's
// definitions file, and links to that file.
func TestTheEditTaskFormSendsATaskItCannotShowToItsDefinitionsFile(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteCommand(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		task.Command{Mode: task.ModeArgv, Path: "/bin/echo", Args: []string{"argv"}, TimeoutMs: time.Hour.Milliseconds()}, func(*Config) {})
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	for lang, want := range map[string]string{
		"en": "task &#34;report&#34; of project &#34;shop&#34; runs a command, not a shell script, which this form cannot show: edit it in the project&#39;s definitions file",
		"zh": "任务“report”运行的是命令而不是 Shell 脚本，此表单无法显示它：请在项目“shop”的定义文件中编辑它。",
	} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report&lang="+lang, nil)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(page, want) || !strings.Contains(page, `<a id="et-definitions" class="button" href="/definitions?project=shop">`) ||
			strings.Contains(page, `id="et-script"`) {
			t.Errorf("%s: the form of an argv task: %d, want 409 saying %q with a link to the file and no script to edit:\n%s", lang, resp.StatusCode, want, page)
		}
	}
}

// An admin changes a trigger's cron and zone from its page: the preview
// changes the trigger alone (its task unchanged, which the file names as
// a trigger's task must be named), and once confirmed the trigger keeps
// every other setting; a form of the revision before is then refused.
func TestTheEditScheduleFormChangesOnlyTheTriggersSchedule(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	before := addOther(t, site, c, csrf)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=en", nil)
	if !strings.Contains(page, `<a id="edit-schedule" class="button" href="/definitions/schedule?project=shop&amp;trigger=nightly">Edit schedule</a>`) {
		t.Fatalf("the trigger's page offers an admin no Edit schedule:\n%s", page)
	}
	_, form := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/schedule?project=shop&trigger=nightly&lang=en", nil)
	fields := formFields(t, form, "/definitions/schedule")
	if fields.Get("cron") != "0 0 3 1 1 *" || fields.Get("timezone") != "Asia/Shanghai" || fields.Get("revision") != "1" || !strings.Contains(form, "It keeps running task report") {
		t.Fatalf("the form shows %v, want trigger nightly's schedule at revision 1:\n%s", fields, form)
	}
	fields.Set("csrf", csrf)
	fields.Set("cron", "30 6 * * 1-5")
	fields.Set("timezone", "UTC")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/schedule?lang=en", fields)
	if resp.StatusCode != http.StatusOK || strings.Count(preview, `class="change-updated"`) != 1 || strings.Count(preview, `class="change-unchanged"`) != 2 ||
		!strings.Contains(preview, `<span class="field" title="cron.expression">cron expression</span>, <span class="field" title="cron.timezone">time zone</span>`) || strings.Contains(preview, `id="def-notes"`) {
		t.Fatalf("the form's preview: %d, want the trigger's cron and zone updated, the project and task unchanged, no notes:\n%s", resp.StatusCode, preview)
	}
	if resp, applied := confirmPreviewed(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(applied, `id="def-applied"`) {
		t.Fatalf("the confirmation: %d\n%s", resp.StatusCode, applied)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range d.Triggers {
		if c := tr.Spec.Cron; tr.Spec.Name == "nightly" && (c.Expression != "30 6 * * 1-5" || c.Timezone != "UTC" || c.MisfirePolicy != trigger.FireOnce || !tr.Spec.Enabled) {
			t.Errorf("trigger nightly after the edit: %+v, want the new cron and zone, fire_once and enabled kept", tr.Spec)
		}
	}
	after := revisions(t, site)
	for _, k := range []string{"task report", "task other", "trigger other", "pin nightly"} {
		if after[k] != before[k] {
			t.Errorf("%s is %d after the edit, was %d: the form changed more than the schedule", k, after[k], before[k])
		}
	}
	fields.Set("cron", "0 0 * * *")
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/schedule?lang=zh", fields); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(page, "触发器“nightly”在你打开此表单之后已被修改（当时是修订版 1，现在是修订版 2）") ||
		formFields(t, page, "/definitions/schedule").Get("cron") != "30 6 * * 1-5" || !strings.Contains(page, "<code>0 0 * * *</code> UTC") {
		t.Errorf("a schedule form of revision 1 sent at revision 2: %d, want 409 in Chinese with the current schedule and the one sent:\n%s", resp.StatusCode, page)
	}
	// A preview confirmed after the task's script was changed, which its
	// file holds as it was: the trigger followed its task, so the apply
	// finds it at another revision and sets nothing back.
	_, form = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/schedule?project=shop&trigger=nightly", nil)
	fields = formFields(t, form, "/definitions/schedule")
	fields.Set("csrf", csrf)
	fields.Set("cron", "15 * * * *")
	_, preview = httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/schedule?lang=en", fields)
	_, taskForm := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report", nil)
	edit := formFields(t, taskForm, "/definitions/task")
	edit.Set("csrf", csrf)
	edit.Set("script", "echo changed meanwhile")
	_, taskPreview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task?lang=en", edit)
	confirmPreviewed(t, c, site.base, taskPreview)
	if resp, page := confirmPreviewed(t, c, site.base, preview); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(page, "<li>Trigger &#34;nightly&#34; of project &#34;shop&#34; changed since you opened this form (revision 2, now 3)") {
		t.Errorf("a schedule preview confirmed after its task changed: %d, want 409 on the form:\n%s", resp.StatusCode, page)
	}
	if got := taskSpec(t, site, "report").Command.Script; got != "echo changed meanwhile" {
		t.Errorf("task report's script is %q after the refused confirmation, want the change made meanwhile", got)
	}
}

// Each mistake of an edit form is said on the form in the page's language,
// started with its field's label, with what was typed kept; nothing is
// changed.
func TestTheEditFormsSayEachMistakeStartingWithItsLabel(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	base := map[string]url.Values{
		"/definitions/task":     {"csrf": {csrf}, "project": {"shop"}, "task": {"report"}, "revision": {"1"}, "script": {"echo kept"}},
		"/definitions/schedule": {"csrf": {csrf}, "project": {"shop"}, "trigger": {"nightly"}, "revision": {"1"}, "cron": {"0 3 * * *"}, "timezone": {"UTC"}},
	}
	for _, f := range []struct {
		form, field, value, lang, want, kept string
	}{
		{"/definitions/task", "timeout", "1w", "en", "<li>Timeout: &#34;1w&#34; is not a duration", `value="1w"`},
		{"/definitions/task", "timeout", "1w", "zh", "<li>超时：“1w”无效", `value="1w"`},
		{"/definitions/task", "script", " \r\n", "zh", "<li>请填写脚本。</li>", `name="revision" value="1"`},
		{"/definitions/schedule", "cron", "0 25 * * *", "zh", "<li>计划（cron）：cron 表达式的小时字段“25”无效", `value="0 25 * * *"`},
		{"/definitions/schedule", "timezone", "Local", "en", "<li>Time zone (IANA name): cron timezone &#34;Local&#34;", `value="Local"`},
		{"/definitions/schedule", "timezone", "", "en", "<li>Fill in the schedule and the time zone.</li>", `value="0 3 * * *"`},
	} {
		form := url.Values{}
		for k, v := range base[f.form] {
			form[k] = v
		}
		form.Set(f.field, f.value)
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+f.form+"?lang="+f.lang, form)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, f.want) || !strings.Contains(page, f.kept) || strings.Contains(page, `class="line"`) {
			t.Errorf("%s %s %q (%s): %d, want 400 saying %q, %s kept:\n%s", f.form, f.field, f.value, f.lang, resp.StatusCode, f.want, f.kept, page)
		}
	}
	if r := revisions(t, site); r["task report"] != 1 || r["trigger nightly"] != 1 {
		t.Errorf("after the refused forms: %v, want every entry at revision 1", r)
	}
}
