package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// clone is a copy of a form's fields, to change one of them.
func clone(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// An edit form refused because someone else changed its task or trigger
// meanwhile keeps every field its user typed — the title too, and the
// timeout — beside the entry as it is now, whether the change came before
// the preview or between the preview and its confirmation.
func TestAnEditFormRefusedForAChangeMeanwhileKeepsEveryFieldTyped(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	open := func(address, action string) url.Values {
		t.Helper()
		_, form := httpcall.Form(t, c, http.MethodGet, site.base+address, nil)
		f := formFields(t, form, action)
		f.Set("csrf", csrf)
		return f
	}
	preview := func(action string, f url.Values) string {
		t.Helper()
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+action+"?lang=en", f)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a preview of %s at the current revision: %d\n%s", action, resp.StatusCode, page)
		}
		return page
	}
	const taskForm, scheduleForm = "/definitions/task", "/definitions/schedule"
	stale := open(taskForm+"?project=shop&task=report", taskForm)
	theirs := clone(stale)
	theirs.Set("script", "echo theirs")
	confirmPreviewed(t, c, site.base, preview(taskForm, theirs))
	mine := clone(stale)
	mine.Set("script", "echo mine")
	mine.Set("title", "每日报表")
	mine.Set("timeout", "30m")
	for lang, label := range map[string]string{"en": "Title", "zh": "标题"} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+taskForm+"?lang="+lang, mine)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(page, label+` <input id="et-yours-title" value="每日报表" readonly`) ||
			!strings.Contains(page, `<input id="et-yours-timeout" value="30m" readonly`) || !strings.Contains(page, ">\necho mine</textarea>") ||
			formFields(t, page, taskForm).Get("script") != "echo theirs" {
			t.Errorf("%s: a task form sent after another user's change: %d, want 409 with the title, timeout and script sent beside the task as it is now:\n%s", lang, resp.StatusCode, page)
		}
	}
	current := open(taskForm+"?project=shop&task=report", taskForm)
	mine = clone(current)
	mine.Set("script", "echo mine again")
	mine.Set("title", "周报")
	previewed := preview(taskForm, mine)
	theirs = clone(current)
	theirs.Set("script", "echo theirs again")
	confirmPreviewed(t, c, site.base, preview(taskForm, theirs))
	if resp, page := confirmPreviewed(t, c, site.base, previewed); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(page, `<input id="et-yours-title" value="周报" readonly`) || !strings.Contains(page, ">\necho mine again</textarea>") {
		t.Errorf("a task preview confirmed after another user's change: %d, want 409 with the title and script sent:\n%s", resp.StatusCode, page)
	}

	stale = open(scheduleForm+"?project=shop&trigger=nightly", scheduleForm)
	theirs = clone(stale)
	theirs.Set("cron", "0 4 * * *")
	confirmPreviewed(t, c, site.base, preview(scheduleForm, theirs))
	mine = clone(stale)
	mine.Set("cron", "15 * * * *")
	mine.Set("title", "夜间对账")
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+scheduleForm+"?lang=zh", mine)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, `标题 <input id="es-yours-title" value="夜间对账" readonly`) ||
		!strings.Contains(page, "<code>15 * * * *</code> Asia/Shanghai") || formFields(t, page, scheduleForm).Get("cron") != "0 4 * * *" {
		t.Errorf("a schedule form sent after another user's change: %d, want 409 with the title and schedule sent beside the trigger as it is now:\n%s", resp.StatusCode, page)
	}
	current = open(scheduleForm+"?project=shop&trigger=nightly", scheduleForm)
	mine = clone(current)
	mine.Set("title", "")
	mine.Set("cron", "45 * * * *")
	previewed = preview(scheduleForm, mine)
	theirs = clone(current)
	theirs.Set("cron", "0 5 * * *")
	confirmPreviewed(t, c, site.base, preview(scheduleForm, theirs))
	if resp, page := confirmPreviewed(t, c, site.base, previewed); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(page, `<input id="es-yours-title" value="" readonly placeholder="(none: the title is cleared)">`) || !strings.Contains(page, "<code>45 * * * *</code>") {
		t.Errorf("a schedule preview confirmed after another user's change: %d, want 409 with the cleared title and the schedule sent:\n%s", resp.StatusCode, page)
	}
}
