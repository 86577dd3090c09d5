package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// previewForm is the form of a definitions preview page: its hidden
// fields and text areas as a browser sends them.
func previewForm(t *testing.T, page string) url.Values {
	t.Helper()
	_, form, ok := strings.Cut(page, `<form method="post" action="/definitions/apply">`)
	if !ok {
		t.Fatalf("the page has no preview form:\n%s", page)
	}
	form, _, _ = strings.Cut(form, "</form>")
	v := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="(\w+)" value="([^"]*)">`).FindAllStringSubmatch(form, -1) {
		v.Add(m[1], html.UnescapeString(m[2]))
	}
	// A browser drops a text area's first line break, which keeps a
	// value's own first line break.
	for _, m := range regexp.MustCompile(`(?s)<textarea name="(\w+)" hidden>(.*?)</textarea>`).FindAllStringSubmatch(form, -1) {
		v.Add(m[1], html.UnescapeString(strings.TrimPrefix(m[2], "\n")))
	}
	v.Del("csrf")
	return v
}

// Back to editing from the New task form's preview returns to the form,
// every field as its user filled it in, not to the definitions editor
// (whose text would be a project that does not exist yet, said to be as
// `ql export` prints it).
func TestBackToEditingFromTheNewTaskPreviewReturnsToTheFormAsFilledIn(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	filled := url.Values{"project": {"garden"}, "task": {"water"}, "script": {"echo \"<wet>\"\n  echo & done"},
		"cron": {"*/30 * * * * *"}, "timezone": {"America/New_York"}, "timeout": {"90m"}, "trigger": {"often"}, "title": {"浇水 <每日>"}, "workdir": {"/srv/garden"}}
	preview := site.do(apitoken.Admin, "/definitions/new", filled)
	page := preview.Body.String()
	if preview.Code != http.StatusOK || !strings.Contains(page, `<button id="def-back" type="submit" formaction="/definitions/new" name="back" value="1">`) {
		t.Fatalf("%d: the preview's way back does not lead to the New task form:\n%s", preview.Code, page)
	}
	sent := previewForm(t, page)
	sent.Set("back", "1")
	back := site.do(apitoken.Admin, "/definitions/new", sent)
	form := html.UnescapeString(back.Body.String())
	if back.Code != http.StatusOK || strings.Contains(form, `id="nt-errors"`) || !strings.Contains(form, `action="/definitions/new"`) {
		t.Fatalf("%d: going back does not show the New task form without errors:\n%s", back.Code, form)
	}
	for _, want := range []string{`id="nt-project" name="project" list="nt-projects" value="garden"`, `id="nt-task" name="task" value="water"`,
		">echo \"<wet>\"\n  echo & done</textarea>", `id="nt-cron" name="cron" value="*/30 * * * * *"`, `id="nt-timezone" name="timezone" value="America/New_York"`,
		`id="nt-timeout" name="timeout" value="90m"`, `id="nt-trigger" name="trigger" value="often"`, `id="nt-title" name="title" value="浇水 <每日>"`, `id="nt-workdir" name="workdir" value="/srv/garden"`} {
		if !strings.Contains(form, want) {
			t.Errorf("the form gone back to does not hold %q:\n%s", want, form)
		}
	}
	if strings.Contains(form, "ql export") {
		t.Errorf("the form gone back to speaks of an export:\n%s", form)
	}
}

// A New task form with required fields left blank (a script of only
// spaces is blank) names those fields alone, and says every other field's
// mistake in the same answer, in the order of the form's fields, in
// English and in Chinese.
func TestTheNewTaskFormNamesOnlyItsBlankFieldsBesideTheOtherFieldsMistakes(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	for l, want := range map[string][]string{
		"en": {`Project: "Bad Proj"`, "Script (run by /bin/sh): this field is required; fill it in.", `Schedule (cron): cron expression "*/90 * * * *"`},
		"zh": {"项目：“Bad Proj”", "脚本（由 /bin/sh 运行）：此项必填，请填写。", "计划（cron）：cron 表达式的分钟字段“*/90”"},
	} {
		w := site.do(apitoken.Admin, "/definitions/new?lang="+l, url.Values{"project": {"Bad Proj"}, "task": {"b"}, "script": {"   \n  "},
			"cron": {"*/90 * * * *"}, "timezone": {"UTC"}})
		_, list, _ := strings.Cut(html.UnescapeString(w.Body.String()), `id="nt-errors"`)
		list, _, _ = strings.Cut(list, "</ul>")
		items := regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(list, -1)
		if w.Code != http.StatusBadRequest || len(items) != len(want) {
			t.Fatalf("%s: %d with %d mistakes, want 400 with %d:\n%s", l, w.Code, len(items), len(want), list)
		}
		for i, m := range items {
			if !strings.HasPrefix(m[1], want[i]) {
				t.Errorf("%s: mistake %d is %q, want it to start %q", l, i+1, m[1], want[i])
			}
		}
	}
}

// Once a New task form's file is applied, the page says what was created,
// not what the form will create, and its project links name the project
// the apply just created, in English and in Chinese.
func TestAnAppliedNewTaskSaysWhatWasCreatedAndLinksItsNewProject(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	for l, want := range map[string][2]string{"en": {"What was created", "What the form creates"}, "zh": {"已创建的内容", "表单将创建的内容"}} {
		project := "garden-" + l
		preview := site.do(apitoken.Admin, "/definitions/new?lang="+l, url.Values{"project": {project}, "task": {"water"}, "script": {"echo"},
			"cron": {"0 3 * * *"}, "timezone": {"UTC"}})
		applied := site.do(apitoken.Admin, "/definitions/apply?lang="+l, previewForm(t, preview.Body.String()))
		page := html.UnescapeString(applied.Body.String())
		if applied.Code != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
			t.Fatalf("%s: %d, want the applied page:\n%s", l, applied.Code, page)
		}
		if !strings.Contains(page, "<h3>"+want[0]+"</h3>") || strings.Contains(page, want[1]) {
			t.Errorf("%s: the applied page does not say %q, or still says %q:\n%s", l, want[0], want[1], page)
		}
		if !strings.Contains(page, `<a href="/definitions?project=`+project+`">`) {
			t.Errorf("%s: the applied page's project links lack %s, just created:\n%s", l, project, page)
		}
	}
}
