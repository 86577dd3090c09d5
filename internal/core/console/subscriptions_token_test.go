package console

import (
	"cmp"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
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

// A refused edit whose URL was typed with a new token shows it nowhere
// (the URL's box holds the URL without it) and says to type it again; the
// form sent back as shown keeps the subscription's stored token, and
// typed again the new one replaces it.
func TestARefusedEditShowsNoTypedTokenAndKeepsTheStoredOneWhenSentAsShown(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const stored, typed = "ghp_STORED1", "ghp_TYPED2"
	if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", "https://bot:"+stored+"@github.com/o/r.git", "")); w.Code != http.StatusOK {
		t.Fatalf("the add: %d\n%s", w.Code, w.Body)
	}
	f := subscriptionForm("jd", "https://bot:"+typed+"@github.com/o/r.git", "")
	f.Set("name", "repo-o-r")
	f.Set("cron", "not a cron")
	for l, retype := range map[string]string{"en": "or the subscription keeps the ones it had", "zh": "否则订阅保留原有的用户名和令牌"} {
		w := site.do(apitoken.Admin, "/subscriptions/edit?lang="+l, f)
		page := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusBadRequest || strings.Contains(page, typed) || strings.Contains(page, stored) ||
			!strings.Contains(page, `name="url" value="https://github.com/o/r.git"`) || !strings.Contains(page, retype) {
			t.Fatalf("the refused edit (%s): %d; want the URL without a token and %q:\n%s", l, w.Code, retype, page)
		}
	}
	f.Set("url", "https://github.com/o/r.git")
	f.Set("cron", "30 5 * * *")
	if w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f); w.Code != http.StatusOK {
		t.Fatalf("the edit sent as shown: %d\n%s", w.Code, w.Body)
	}
	tk, _ := taskNamed(definitionsOf(t, site, "jd"), "repo-o-r")
	if env := taskEnv(tk); env[crontab.CredentialPasswordVariable] != stored {
		t.Errorf("after the edit sent as shown the password is %q; want the stored one kept", env[crontab.CredentialPasswordVariable])
	}
	f.Set("url", "https://bot:"+typed+"@github.com/o/r.git")
	if w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f); w.Code != http.StatusOK {
		t.Fatalf("the edit with the token typed again: %d\n%s", w.Code, w.Body)
	}
	tk, _ = taskNamed(definitionsOf(t, site, "jd"), "repo-o-r")
	if env := taskEnv(tk); env[crontab.CredentialPasswordVariable] != typed {
		t.Errorf("after the token was typed again the password is %q; want it", env[crontab.CredentialPasswordVariable])
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

// An edit whose URL leads to another host than the one its task's
// credentials given from a secret were set for removes them (the
// subscription package's TestAnEditToAnotherHostDoesNotCarryASecretCredentialThere):
// the page says so, in English and in Chinese, and the audit record too,
// naming the variables and never the secret's value.
func TestAnEditToAnotherHostSaysItsSecretCredentialsWereRemoved(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for _, name := range []string{"repo-o-r", "repo-o-s"} {
		applyYAML(t, site.batchSite, "project: jd\ntasks:\n  - name: "+name+"\n    script: \"true\"\n"+
			"    labels: {subscription/url: \"https://bot@github.com/o/"+name[len(name)-1:]+".git\"}\n"+
			"    env: {"+crontab.CredentialUserVariable+": bot, "+crontab.CredentialPasswordVariable+": {secret: GH_TOKEN}}\n")
	}
	for name, l := range map[string]string{"repo-o-r": "en", "repo-o-s": "zh"} {
		f := subscriptionForm("jd", "https://gitlab.com/o/"+name[len(name)-1:]+".git", "")
		f.Set("name", name)
		w := site.do(apitoken.Admin, "/subscriptions/edit?lang="+l, f)
		want := map[string]string{"en": "so they were removed from the task's env and it pulls without credentials", "zh": "因此这些凭据已从任务的环境变量中移除"}[l]
		if w.Code != http.StatusOK || !strings.Contains(html.UnescapeString(w.Body.String()), want) {
			t.Errorf("the edit of %s to another host (%s): %d; want the page saying %q:\n%s", name, l, w.Code, want, w.Body)
		}
	}
	page, err := site.st.AuditList(t.Context(), audit.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	said := 0
	for _, rec := range page.Records {
		if rec.Action == audit.SubscriptionUpdated && strings.Contains(rec.Note, "the credential variables given from a secret removed") {
			said++
		}
	}
	if said != 2 {
		t.Errorf("%d audit records of the edits say the credentials were removed; want 2", said)
	}
}
