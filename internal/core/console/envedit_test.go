package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
)

// beanFile is project shop's task bean, given a secret and a value.
const beanFile = `project: shop
tasks:
  - name: bean
    script: node jd_bean_sign.js
    env: {JD_COOKIE: {secret: JD_COOKIE}, MODE: fast}
`

// Form fields as a browser sends them: an input's value (a box only when
// ticked), a text area's text after its first line break, a choice's
// option selected (its first when none is).
var (
	formInput    = regexp.MustCompile(`<input ([^>]*)>`)
	formTextArea = regexp.MustCompile(`(?s)<textarea ([^>]*)>(.*?)</textarea>`)
	formSelect   = regexp.MustCompile(`(?s)<select ([^>]*)>(.*?)</select>`)
	formOption   = regexp.MustCompile(`<option value="([^"]*)"( selected)?>`)
	formAttr     = regexp.MustCompile(`(\w+)="([^"]*)"`)
)

// formValues are the fields the page's form posting to action sends, in
// the page's order within each name, as a browser sends them unchanged.
func formValues(t *testing.T, page, action string) url.Values {
	t.Helper()
	_, form, ok := strings.Cut(page, `<form method="post" action="`+action+`"`)
	if !ok {
		t.Fatalf("the page has no form posting to %s:\n%s", action, page)
	}
	form, _, _ = strings.Cut(form, "</form>")
	attrs := func(s string) map[string]string {
		m := map[string]string{}
		for _, a := range formAttr.FindAllStringSubmatch(s, -1) {
			m[a[1]] = html.UnescapeString(a[2])
		}
		return m
	}
	v := url.Values{}
	for _, m := range formInput.FindAllStringSubmatch(form, -1) {
		a := attrs(m[1])
		if a["name"] == "" || (a["type"] == "checkbox" && !strings.Contains(m[1], " checked")) {
			continue
		}
		v.Add(a["name"], a["value"])
	}
	for _, m := range formTextArea.FindAllStringSubmatch(form, -1) {
		if name := attrs(m[1])["name"]; name != "" {
			v.Add(name, html.UnescapeString(strings.TrimPrefix(m[2], "\n")))
		}
	}
	for _, m := range formSelect.FindAllStringSubmatch(form, -1) {
		opts := formOption.FindAllStringSubmatch(m[2], -1)
		i := slices.IndexFunc(opts, func(o []string) bool { return o[2] != "" })
		if i < 0 {
			i = 0
		}
		v.Add(attrs(m[1])["name"], html.UnescapeString(opts[i][1]))
	}
	v.Del("csrf")
	return v
}

// applyYAML applies a definitions file through the console.
func applyYAML(t *testing.T, site *batchSite, text string) {
	t.Helper()
	if w := site.do(apitoken.Admin, "/definitions/apply", url.Values{"yaml": {text}}); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="def-applied"`) {
		t.Fatalf("apply: %d %s", w.Code, w.Body)
	}
}

// envOf is the current env of project shop's task named name.
func envOf(t *testing.T, site *batchSite, name string) []task.EnvVar {
	t.Helper()
	tk, err := site.st.TaskByName(t.Context(), projectID(t, site, "shop"), name)
	if err != nil {
		t.Fatal(err)
	}
	return tk.Spec.Command.Env
}

// TestEditTaskKeepsItsSecretEnvWhenUntouched: the Edit task form shows
// the task's env, its secret chosen by name; sent back untouched with a
// changed script, the task keeps its env as it was (the secret reference
// too), and so does an edit sent without the env editor's fields at all.
func TestEditTaskKeepsItsSecretEnvWhenUntouched(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t, "JD_COOKIE", "OTHER"))
	applyYAML(t, site, beanFile)
	before := envOf(t, site, "bean")
	for i, strip := range []bool{false, true} {
		page := html.UnescapeString(site.do(apitoken.Admin, "/definitions/task?project=shop&task=bean", nil).Body.String())
		if !strings.Contains(page, `<option value="JD_COOKIE" selected>JD_COOKIE</option>`) || !strings.Contains(page, ">\nfast</textarea>") {
			t.Fatalf("the Edit task form does not show the task's env:\n%s", page)
		}
		sent := formValues(t, page, "/definitions/task")
		sent.Set("script", "node jd_bean_sign.js --round "+string(rune('1'+i)))
		if strip {
			for k := range sent {
				if strings.HasPrefix(k, "env_") {
					sent.Del(k)
				}
			}
		}
		preview := site.do(apitoken.Admin, "/definitions/task", sent)
		if preview.Code != http.StatusOK || !strings.Contains(preview.Body.String(), `id="def-preview"`) {
			t.Fatalf("preview (env fields stripped: %v): %d %s", strip, preview.Code, preview.Body)
		}
		if w := site.do(apitoken.Admin, "/definitions/apply", previewForm(t, preview.Body.String())); w.Code != http.StatusOK {
			t.Fatalf("apply: %d %s", w.Code, w.Body)
		}
		if after := envOf(t, site, "bean"); !slices.Equal(after, before) {
			t.Errorf("an edit of the script (env fields stripped: %v) left the env %+v, want it as it was, %+v", strip, after, before)
		}
	}
}

// An Edit task form sent after the task changed shows the task as it is
// now, its env in the form, and beside it the env that was sent, as the
// other fields sent are kept.
func TestTheEditConflictKeepsTheEnvYouSent(t *testing.T) {
	t.Parallel()
	site := envSite(t)
	applyYAML(t, site, beanFile)
	sent := formValues(t, site.do(apitoken.Admin, "/definitions/task?project=shop&task=bean", nil).Body.String(), "/definitions/task")
	applyYAML(t, site, strings.Replace(beanFile, "node jd_bean_sign.js", "node jd_bean_sign.js --changed", 1))
	names := sent["env_name"]
	i := slices.Index(names, "MODE")
	sent["env_value"][i] = "slow"
	addEnvRow(sent, "NEW", "1", false)
	w := site.do(apitoken.Admin, "/definitions/task", sent)
	page := html.UnescapeString(w.Body.String())
	yours := between(page, `<div id="et-yours-env">`, "</div>")
	if w.Code != http.StatusConflict || !strings.Contains(yours, `<dt><code>MODE</code></dt><dd><code class="env-literal">slow</code></dd>`) ||
		!strings.Contains(yours, "<dt><code>NEW</code></dt>") || !strings.Contains(yours, "JD_COOKIE") {
		t.Fatalf("%d: the conflict does not keep the env sent beside the form:\n%s", w.Code, page)
	}
	if !strings.Contains(page, ">\nfast</textarea>") || !strings.Contains(page, "--changed") {
		t.Errorf("the form below does not show the task as it is now:\n%s", page)
	}
}
