package console

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
)

// shopEnvFile is project shop with an env of a value and a secret, and
// its task bean.
const shopEnvFile = `project: shop
env: {B: one, C: {secret: JD_COOKIE}}
tasks:
  - name: bean
    script: node jd_bean_sign.js
`

// projectEnvOf is project shop's env as stored.
func projectEnvOf(t *testing.T, site *batchSite) []task.EnvVar {
	t.Helper()
	p, err := site.st.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	return p.Env
}

// beanRevision is the current revision of project shop's task bean.
func beanRevision(t *testing.T, site *batchSite) int64 {
	t.Helper()
	tk, err := site.st.TaskByName(t.Context(), projectID(t, site, "shop"), "bean")
	if err != nil {
		t.Fatal(err)
	}
	return tk.Revision
}

// envFormOf is the Edit environment form of project shop as a browser
// would send it unchanged.
func envFormOf(t *testing.T, site *batchSite) url.Values {
	t.Helper()
	page := html.UnescapeString(site.do(apitoken.Admin, "/definitions/env?project=shop", nil).Body.String())
	return formValues(t, page, "/definitions/env")
}

// The project page links to the Edit environment form; the form shows the
// project's env in the task forms' rows, and a change sent (B changed, C
// removed, A added) previews as the project update a dry run says, then
// publishes it: the project's env changes, the task keeps its revision.
func TestEditingAProjectsEnvInTheConsolePreviewsThenPublishesNoTaskRevision(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t, "JD_COOKIE"))
	applyYAML(t, site, shopEnvFile)
	if page := site.do(apitoken.Admin, "/triggers?project=shop", nil).Body.String(); !strings.Contains(page, `id="project-env-edit" class="button" href="/definitions/env?project=shop"`) {
		t.Fatalf("the project page does not link to its Edit environment form:\n%s", page)
	}
	rev := beanRevision(t, site)
	sent := envFormOf(t, site)
	names := sent["env_name"]
	if !slices.Contains(names, "B") || !slices.Contains(names, "C") {
		t.Fatalf("the form does not show the project's env: %v", sent)
	}
	sent["env_value"][slices.Index(names, "B")] = "two"
	sent.Add(envRemoveField, strconv.Itoa(slices.Index(names, "C")))
	addEnvRow(sent, "A", "8080", false)
	preview := site.do(apitoken.Admin, "/definitions/env", sent)
	body := html.UnescapeString(preview.Body.String())
	if preview.Code != http.StatusOK || !strings.Contains(body, `id="def-preview"`) || !strings.Contains(body, `title="env (+A, ~B, -C)"`) {
		t.Fatalf("preview: %d, want the project's update env (+A, ~B, -C):\n%s", preview.Code, body)
	}
	if !slices.Equal(projectEnvOf(t, site), []task.EnvVar{{Name: "B", Value: "one"}, {Name: "C", SecretRef: "JD_COOKIE"}}) {
		t.Fatalf("the preview changed the env: %+v", projectEnvOf(t, site))
	}
	if w := site.do(apitoken.Admin, "/definitions/apply", previewForm(t, preview.Body.String())); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="def-applied"`) {
		t.Fatalf("apply: %d %s", w.Code, w.Body)
	}
	if got, want := projectEnvOf(t, site), []task.EnvVar{{Name: "A", Value: "8080"}, {Name: "B", Value: "two"}}; !slices.Equal(got, want) {
		t.Errorf("after publishing the project's env is %+v; want %+v", got, want)
	}
	if got := beanRevision(t, site); got != rev {
		t.Errorf("publishing the project's env moved task bean from revision %d to %d; want no task revision", rev, got)
	}
}

// A project env that a task of the project could not start with (its
// script and the env over the size limit) is refused at the form's
// preview as an apply refuses it, said beside the rows, which keep what
// was typed; nothing is published.
func TestTheProjectEnvFormRefusesAsApplyDoesBesideItsRows(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t, "JD_COOKIE"))
	applyYAML(t, site, "project: shop\ntasks:\n  - name: big\n    script: \""+strings.Repeat("#", task.MaxScriptLen)+"\"\n")
	sent := envFormOf(t, site)
	for _, name := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"} {
		addEnvRow(sent, name, strings.Repeat("v", task.MaxEnvValueLen), false)
	}
	w := site.do(apitoken.Admin, "/definitions/env", sent)
	page := html.UnescapeString(w.Body.String())
	_, beside, _ := strings.Cut(page, `id="env-errors"`)
	beside, _, _ = strings.Cut(beside, "</ul>")
	if w.Code != http.StatusBadRequest || !strings.Contains(beside, `Task "big" of project shop, which this file leaves out, could not start`) {
		t.Fatalf("%d: the refusal is not said beside the rows:\n%.3000s", w.Code, page)
	}
	if strings.Count(page, `name="env_name" value="`) < 12 {
		t.Errorf("the form does not keep the rows sent")
	}
	if env := projectEnvOf(t, site); len(env) != 0 {
		t.Errorf("the refused env was published: %d variables", len(env))
	}
}

// The form shows a secret row as the secret's name chosen; sent back
// untouched beside a new row, the project keeps the reference (never a
// value), and the preview's file names it by name alone.
func TestTheProjectEnvFormKeepsSecretRefsUntouched(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t, "JD_COOKIE", "OTHER"))
	applyYAML(t, site, shopEnvFile)
	page := html.UnescapeString(site.do(apitoken.Admin, "/definitions/env?project=shop", nil).Body.String())
	if !strings.Contains(page, `<option value="JD_COOKIE" selected>JD_COOKIE</option>`) {
		t.Fatalf("the form does not show the secret chosen by name:\n%s", page)
	}
	sent := formValues(t, page, "/definitions/env")
	addEnvRow(sent, "MODE", "fast", false)
	preview := site.do(apitoken.Admin, "/definitions/env", sent)
	if preview.Code != http.StatusOK || strings.Contains(preview.Body.String(), "v-JD_COOKIE") {
		t.Fatalf("preview: %d (a secret's value must never show):\n%s", preview.Code, preview.Body)
	}
	if w := site.do(apitoken.Admin, "/definitions/apply", previewForm(t, preview.Body.String())); w.Code != http.StatusOK {
		t.Fatalf("apply: %d %s", w.Code, w.Body)
	}
	want := []task.EnvVar{{Name: "B", Value: "one"}, {Name: "C", SecretRef: "JD_COOKIE"}, {Name: "MODE", Value: "fast"}}
	if got := projectEnvOf(t, site); !slices.Equal(got, want) {
		t.Errorf("the project's env is %+v; want %+v, the secret kept by name", got, want)
	}
}

// A project changed after its form was shown, or after the preview, is
// not set back: the form shows the project's env as it is now, with the
// rows sent beside it, and nothing of them is published.
func TestTheProjectEnvFormDoesNotUndoAChangeMadeMeanwhile(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t, "JD_COOKIE"))
	applyYAML(t, site, shopEnvFile)
	sent := envFormOf(t, site)
	addEnvRow(sent, "MINE", "1", false)
	preview := site.do(apitoken.Admin, "/definitions/env", sent)
	if preview.Code != http.StatusOK {
		t.Fatalf("preview: %d %s", preview.Code, preview.Body)
	}
	changed := strings.Replace(shopEnvFile, "B: one", "B: theirs", 1)
	applyYAML(t, site, changed)
	for step, send := range map[string]func() *httptest.ResponseRecorder{
		"preview": func() *httptest.ResponseRecorder { return site.do(apitoken.Admin, "/definitions/env", sent) },
		"confirm": func() *httptest.ResponseRecorder {
			return site.do(apitoken.Admin, "/definitions/apply", previewForm(t, preview.Body.String()))
		},
	} {
		w := send()
		page := html.UnescapeString(w.Body.String())
		_, yours, _ := strings.Cut(page, `id="pe-sent"`)
		if w.Code != http.StatusConflict || !strings.Contains(yours, "<code>MINE</code>") || !strings.Contains(page, ">\ntheirs</textarea>") {
			t.Errorf("%s after a change meanwhile: %d; want 409 showing the env now with the rows sent beside it:\n%s", step, w.Code, page)
		}
	}
	zh := html.UnescapeString(site.do(apitoken.Admin, "/definitions/env?lang=zh", sent).Body.String())
	if !strings.Contains(zh, "项目“shop”在你打开此表单之后已被修改") || !strings.Contains(zh, "你提交的内容（未应用）") {
		t.Errorf("the conflict does not read in Chinese:\n%s", zh)
	}
	want := []task.EnvVar{{Name: "B", Value: "theirs"}, {Name: "C", SecretRef: "JD_COOKIE"}}
	if got := projectEnvOf(t, site); !slices.Equal(got, want) {
		t.Errorf("the project's env is %+v; want the change made meanwhile, %+v", got, want)
	}
}

// boundToShop is the store's accounts, each read bound to project shop:
// an owner too, which no store keeps, as a role that may publish would
// be were it ever bound.
type boundToShop struct{ account.Authenticator }

func (b boundToShop) UserByID(ctx context.Context, id string) (account.User, error) {
	u, err := b.Authenticator.UserByID(ctx, id)
	u.Projects = []string{"shop"}
	return u, err
}

// A user bound to projects never reaches the Edit environment form, not
// even of its own project: reading it and sending it are refused 403
// before anything is read or published, as every definitions page is.
func TestABoundUserNeverReachesTheProjectEnvForm(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) {
		withSecretsFile(t, "JD_COOKIE")(cfg)
		cfg.Users = boundToShop{cfg.Export.(account.Authenticator)}
	})
	applyYAML(t, site, shopEnvFile)
	const hash = "$argon2id$placeholder"
	id := ids.New()
	if _, err := site.st.UserCreate(t.Context(), account.NewUser{ID: id, Name: "root", Role: account.Owner, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	site.c.sessions.add(&session{id: "bound", csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: "root", scope: account.Owner.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	sent := envFormOf(t, site)
	addEnvRow(sent, "INJECTED", "1", false)
	for _, w := range []*httptest.ResponseRecorder{
		site.do("bound", "/definitions/env?project=shop", nil),
		site.do("bound", "/definitions/env", sent),
	} {
		if w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), `name="env_name"`) {
			t.Errorf("the Edit environment form for an owner bound to shop: %d; want 403 and no form:\n%s", w.Code, w.Body)
		}
	}
	if got := projectEnvOf(t, site); slices.ContainsFunc(got, func(e task.EnvVar) bool { return e.Name == "INJECTED" }) {
		t.Errorf("a bound user's form changed the project's env: %+v", got)
	}
}

// A project env value a text box would not give back as it is (a
// carriage return) is not shown in the form, which would change it
// unasked: the page says so and links to the project's file.
func TestTheProjectEnvFormSendsAValueItCannotKeepToTheFile(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, withSecretsFile(t))
	applyYAML(t, site, "project: shop\nenv: {CRLF: \"a\\r\\nb\"}\n")
	w := site.do(apitoken.Admin, "/definitions/env?project=shop", nil)
	page := html.UnescapeString(w.Body.String())
	if w.Code != http.StatusConflict || !strings.Contains(page, `id="pe-elsewhere"`) || !strings.Contains(page, "env CRLF with a carriage return") ||
		!strings.Contains(page, `href="/definitions?project=shop"`) || strings.Contains(page, `name="env_name"`) {
		t.Fatalf("%d: want the way to the project's file, and no form:\n%s", w.Code, page)
	}
	zh := html.UnescapeString(site.do(apitoken.Admin, "/definitions/env?project=shop&lang=zh", nil).Body.String())
	if !strings.Contains(zh, "项目“shop”的环境变量 CRLF 的值含有回车符或其他控制字符") {
		t.Errorf("the refusal does not read in Chinese:\n%s", zh)
	}
}
