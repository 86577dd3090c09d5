package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A console user gives a task and its trigger a Chinese title on the New
// task form, changes the task's on Edit task and the trigger's on Edit
// schedule, each through its preview; the titles are the project's (its
// export writes them), lead the names in the triggers list and the
// overview's next fires, and a title a
// file would refuse is refused on the form, starting with its label.
func TestTheConsoleFormsGiveATaskAndItsTriggerATitle(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	form := newTaskForm(csrf, "shop", "checkin", "echo ok")
	form.Set("title", "每日签到")
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=zh", form)
	applyPreviewed(t, c, site.base, csrf, preview)
	titles := func() (string, string) {
		d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 10)
		if err != nil {
			t.Fatal(err)
		}
		return d.Titles.Tasks["checkin"], d.Titles.Triggers["checkin"]
	}
	if task, trig := titles(); task != "每日签到" || trig != "每日签到" {
		t.Fatalf("after New task: titles %q and %q, want 每日签到 for the task and its trigger", task, trig)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=shop&lang=zh", nil); strings.Count(page, "title: 每日签到") != 2 {
		t.Errorf("the project's file does not write both titles:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=zh", nil); !strings.Contains(page, `<bdi class="obj-title">每日签到</bdi>`) {
		t.Errorf("the triggers list does not lead the trigger with its title:\n%s", page)
	}
	waitFor(t, "the overview's next fires to lead the new trigger with its title", 10*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/?lang=zh", nil)
		return strings.Contains(page, `<bdi class="obj-title">每日签到</bdi><span class="title-sep"> · </span><a href="/triggers/`)
	})

	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=checkin&lang=zh", nil)
	fields := formFields(t, page, "/definitions/task")
	if fields.Get("title") != "每日签到" || !strings.Contains(page, "标题（可选，可用中文）") {
		t.Fatalf("Edit task shows the title %q, want 每日签到 under its label:\n%s", fields.Get("title"), page)
	}
	fields.Set("csrf", csrf)
	fields.Set("title", "签到（工作日）")
	_, preview = httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task?lang=zh", fields)
	confirmPreviewed(t, c, site.base, preview)

	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/schedule?project=shop&trigger=checkin&lang=zh", nil)
	fields = formFields(t, page, "/definitions/schedule")
	if fields.Get("title") != "每日签到" {
		t.Fatalf("Edit schedule shows the title %q, want 每日签到:\n%s", fields.Get("title"), page)
	}
	fields.Set("csrf", csrf)
	fields.Set("title", "")
	_, preview = httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/schedule?lang=zh", fields)
	confirmPreviewed(t, c, site.base, preview)
	if task, trig := titles(); task != "签到（工作日）" || trig != "" {
		t.Errorf("after the edits: titles %q and %q, want the task's changed and the trigger's cleared", task, trig)
	}

	form = newTaskForm(csrf, "shop", "other", "echo ok")
	form.Set("title", strings.Repeat("长", 81))
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=zh", form); resp.StatusCode != http.StatusBadRequest ||
		strings.Count(page, "<li>标题（可选，可用中文）：") != 1 {
		t.Errorf("a title of 81 characters: %d, want 400 starting with the title's label:\n%s", resp.StatusCode, page)
	}
}
