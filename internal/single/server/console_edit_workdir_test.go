package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The Edit task form shows the task's working directory and changes it:
// a script that runs a file of its scripts folder by name depends on it,
// so the form that edits the script shows where it starts, and setting
// it there is the task's workingDir once confirmed.
func TestTheEditTaskFormShowsAndChangesTheTasksWorkingDirectory(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 3 * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true")
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	_, form := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report&lang=zh", nil)
	fields := formFields(t, form, "/definitions/task")
	if _, ok := fields["workdir"]; !ok || fields.Get("workdir") != "" || !strings.Contains(form, "工作目录（可选）") {
		t.Fatalf("the form shows %v, want an empty working directory, labelled in Chinese:\n%s", fields, form)
	}
	dir := t.TempDir()
	fields.Set("csrf", csrf)
	fields.Set("workdir", dir)
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/task?lang=en", fields)
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, "workingDir: "+dir+"\n") {
		t.Fatalf("the preview: %d, want the file to give the task workingDir %s:\n%s", resp.StatusCode, dir, preview)
	}
	if resp, applied := confirmPreviewed(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(applied, `id="def-applied"`) {
		t.Fatalf("the confirmation: %d, want it applied:\n%s", resp.StatusCode, applied)
	}
	if got := taskSpec(t, site, "report").Command.WorkingDir; got != dir {
		t.Errorf("task report's workingDir after the edit: %q, want %q", got, dir)
	}
	_, form = httpcall.Form(t, c, http.MethodGet, site.base+"/definitions/task?project=shop&task=report&lang=en", nil)
	if got := formFields(t, form, "/definitions/task").Get("workdir"); got != dir {
		t.Errorf("the form shows the working directory %q, want %q", got, dir)
	}
}
