package console

import (
	"cmp"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/subscription"
	"github.com/qinglong/qinglong/internal/core/task"
)

// The edit form shows a subscription's URL without its token, nor does
// the page of a refused edit; an edit that sends the URL as shown keeps
// pulling with the token (the pull task's URL label and env keep it, its
// script never holds it), and a new URL with credentials replaces them.
func TestTheEditFormNeverShowsTheTokenAndAnEditLeavingTheURLKeepsIt(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const token = "ghp_SECRET42"
	secretURL := "https://" + token + "@github.com/o/r.git"
	if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", secretURL, "")); w.Code != http.StatusOK {
		t.Fatalf("the add: %d\n%s", w.Code, w.Body)
	}
	w := site.send(apitoken.Admin, "/subscriptions/edit?name=repo-o-r&lang=en", nil)
	if page := w.Body.String(); w.Code != http.StatusOK || strings.Contains(page, token) || !strings.Contains(page, `name="url" value="https://github.com/o/r.git"`) {
		t.Fatalf("the edit form: %d; want the URL without its token:\n%s", w.Code, page)
	}
	f := subscriptionForm("jd", "https://github.com/o/r.git", "")
	f.Set("name", "repo-o-r")
	f.Set("cron", "not a cron")
	if w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f); w.Code == http.StatusOK || strings.Contains(w.Body.String(), token) {
		t.Errorf("a refused edit: %d; want a refusal that shows no token:\n%s", w.Code, w.Body)
	}
	f.Set("cron", "30 5 * * *")
	if w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f); w.Code != http.StatusOK || strings.Contains(html.UnescapeString(w.Body.String()), token) {
		t.Fatalf("the edit: %d\n%s", w.Code, w.Body)
	}
	d := definitionsOf(t, site, "jd")
	tk, _ := taskNamed(d, "repo-o-r")
	sub, _ := subscription.Named(subscription.Of(d), "repo-o-r")
	if sub.URL != secretURL || sub.Cron != "30 5 * * *" || taskEnv(tk)[crontab.CredentialUserVariable] != token || strings.Contains(tk.Spec.Command.Script, token) {
		t.Errorf("after an edit leaving the URL: URL %q, cron %q, script %q; want the token kept in the env, out of the script", subscription.Redacted(sub.URL), sub.Cron, tk.Spec.Command.Script)
	}
	f.Set("url", "https://ghp_NEW@github.com/o/r.git")
	if w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f); w.Code != http.StatusOK {
		t.Fatalf("the edit with a new token: %d\n%s", w.Code, w.Body)
	}
	d = definitionsOf(t, site, "jd")
	tk, _ = taskNamed(d, "repo-o-r")
	if sub, _ := subscription.Named(subscription.Of(d), "repo-o-r"); sub.URL != "https://ghp_NEW@github.com/o/r.git" || taskEnv(tk)[crontab.CredentialUserVariable] != "ghp_NEW" {
		t.Errorf("a URL sent with credentials did not replace them: %q", subscription.Redacted(sub.URL))
	}
}

// taskEnv is t's env by name, a secret's by its reference.
func taskEnv(t task.Revision) map[string]string {
	out := map[string]string{}
	for _, v := range t.Spec.Command.Env {
		out[v.Name] = cmp.Or(v.Value, v.SecretRef)
	}
	return out
}
