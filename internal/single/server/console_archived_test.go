package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A trigger of an archived project reads "project archived" in the
// triggers list and on its page, in either language, with no next fire
// and no Run now. Each page names its language: the last one asked for
// stays the session's.
func TestConsoleShowsAnArchivedProjectsTriggerArchivedWithNoNextFireOrRunNow(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	site.archiveShop(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Operate])
	for path, want := range map[string][]string{
		"/triggers?lang=en":                        {`class="trigger-state">project archived<`, "none while its project is archived"},
		"/triggers/" + site.triggerID + "?lang=en": {`id="pause-state">project archived<`, `id="next-fire">—<`, "none while its project is archived"},
		"/triggers?lang=zh":                        {`class="trigger-state">项目已归档<`, "项目归档期间没有"},
		"/triggers/" + site.triggerID + "?lang=zh": {`id="pause-state">项目已归档<`},
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s does not show %s:\n%s", path, w, page)
			}
		}
		if strings.Contains(page, "/run\"") {
			t.Errorf("%s offers Run now for a trigger of an archived project:\n%s", path, page)
		}
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/?lang=en", nil); strings.Contains(page, "/triggers/"+site.triggerID) {
		t.Errorf("the overview lists the archived project's trigger among the next fires:\n%s", page)
	}
}

// archiveShop archives the site's project "shop" as a definitions file
// with status: archived would.
func (s *consoleSite) archiveShop(t *testing.T) {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(s.dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.Store.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	p.Status = project.Archived
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// An archived project's page offers no pause (an archived project cannot
// be paused) and its triggers no Edit task or Edit schedule (their files
// are refused), each saying why and pointing to the Definitions page; New
// task offers no archived project to add a task to.
func TestAnArchivedProjectOffersNoPauseNoEditAndNoNewTask(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	site.archiveShop(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=zh", nil)
	if strings.Contains(page, `id="project-pause"`) || !strings.Contains(page, `<p class="note" id="project-archived">此项目已归档`) || !strings.Contains(page, "“定义”页面") {
		t.Errorf("the archived project's page offers a pause, or does not say why it offers none:\n%s", page)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=en", nil)
	if strings.Contains(page, `id="edit-task"`) || strings.Contains(page, `id="edit-schedule"`) || !strings.Contains(page, `id="edit-archived">This trigger&#39;s project is archived`) {
		t.Errorf("the archived project's trigger offers an edit, or does not say why it offers none:\n%s", page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/new?lang=en", nil); strings.Contains(page, `<option value="shop"`) {
		t.Errorf("New task offers the archived project:\n%s", page)
	}
}
