package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The triggers list of one project offers Pause project (with a note) to
// an operator, and Resume project once it is paused; pausing says what it did and the list
// and the trigger's page show the trigger paused with its project, in
// English and in Chinese; resuming says how many it resumed.
func TestConsolePausesAProjectFromItsTriggersListAndShowsItsTriggersPausedWithIt(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	// post sends a form and follows its 303 to the page it answers with.
	post := func(u string, form url.Values) (*http.Response, string) {
		resp, page := httpcall.Form(t, c, http.MethodPost, u, form)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d, want 303:\n%s", u, resp.StatusCode, page)
		}
		return httpcall.Form(t, c, http.MethodGet, site.base+resp.Header.Get("Location"), nil)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop", nil); !strings.Contains(page, `action="/projects/shop/pause"`) ||
		!strings.Contains(page, `id="project-pause-note"`) {
		t.Fatalf("the triggers list of project shop offers no project pause:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers", nil); strings.Contains(page, `id="project-pause"`) {
		t.Fatal("the triggers list of every project offers a project pause; want it only where one project is shown")
	}
	resp, page := post(site.base+"/projects/shop/pause", url.Values{"csrf": {csrf}, "note": {"freeze"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="project-done">Project paused with 1 of its triggers.<`) ||
		!strings.Contains(page, `class="trigger-state">paused with its project<`) {
		t.Fatalf("pause project: %d; want the list saying the project was paused and its trigger paused with it:\n%s", resp.StatusCode, page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=zh", nil); !strings.Contains(page, `id="pause-state">随项目暂停 — freeze<`) {
		t.Fatalf("the trigger's page in Chinese does not say it is paused with its project, with the note:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=zh", nil); !strings.Contains(page, "恢复项目") {
		t.Fatalf("the triggers list in Chinese of the paused project lacks the project resume:\n%s", page)
	}
	httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang=en", nil) // the language chosen sticks
	_, page = post(site.base+"/projects/shop/pause", url.Values{"csrf": {csrf}})
	if !strings.Contains(page, `id="project-done">The project was paused already; nothing changed.<`) {
		t.Fatalf("a second pause does not say the project was paused already:\n%s", page)
	}
	_, page = post(site.base+"/projects/shop/resume", url.Values{"csrf": {csrf}})
	if !strings.Contains(page, `id="project-done">Project resumed with 1 of its triggers; 0 paused on their own stay paused.<`) || strings.Contains(page, "paused with its project") {
		t.Fatalf("resume project: want the list saying it resumed the trigger, none paused with its project:\n%s", page)
	}
}
