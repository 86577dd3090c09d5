package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A project's page lists its env, in English and in Chinese (环境变量),
// a secret by its name; the API's project answers it the same way, a
// secret by its name, never a value; a project without an env says none.
func TestAProjectsPageAndTheAPIShowItsEnvWithSecretsByName(t *testing.T) {
	t.Parallel()
	site, c, _ := startSignedInConsoleSite(t, apitoken.Read)
	page := func(lang string) string {
		t.Helper()
		_, p := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang="+lang, nil)
		return p
	}
	if p := page("en"); strings.Contains(p, `id="project-env"`) {
		t.Fatalf("the page of a project without an env lists one:\n%s", p)
	}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 0)
	if err != nil {
		t.Fatal(err)
	}
	d.Project.Env = []task.EnvVar{{Name: "REGION", Value: "cn-east"}, {Name: "TOKEN", SecretRef: "shop/api-token"}}
	if _, err := site.srv.store.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en": {"<h3>Environment variables</h3>", "<td><code>REGION</code></td><td><code>cn-east</code></td>", "<td><code>TOKEN</code></td><td>from secret <code>shop/api-token</code></td>"},
		"zh": {"<h3>环境变量</h3>", "<td><code>REGION</code></td><td><code>cn-east</code></td>", "<td><code>TOKEN</code></td><td>取自密钥 <code>shop/api-token</code></td>"},
	} {
		p := page(lang)
		for _, part := range want {
			if !strings.Contains(p, part) {
				t.Errorf("%s: the project's page does not say %q:\n%s", lang, part, p)
			}
		}
	}
	st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/projects/shop", site.tokens[apitoken.Read], nil)
	var got view.Project
	if err := json.Unmarshal(body, &got); st != http.StatusOK || err != nil {
		t.Fatalf("GET the project: %d %s (%v)", st, body, err)
	}
	want := []view.ProjectEnvVar{{Name: "REGION", Value: "cn-east"}, {Name: "TOKEN", Secret: "shop/api-token"}}
	if !slices.Equal(got.Env, want) {
		t.Fatalf("the API's project has env %+v; want %+v (%s)", got.Env, want, body)
	}
}

// An admin's project page offers to add, change or remove the project's
// env on its Edit environment form (编辑环境变量), whose rows hold the env
// as stored, in English and in Chinese; the project's file on
// Definitions holds it too; a read token's page does not offer it.
func TestAnAdminsProjectPageOffersToEditItsEnvOnItsForm(t *testing.T) {
	t.Parallel()
	site, admin, _ := startSignedInConsoleSite(t, apitoken.Admin)
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "shop", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, p := httpcall.Form(t, admin, http.MethodGet, site.base+"/triggers?project=shop&lang=en", nil)
	if !strings.Contains(p, `None: every task of the project starts with its own env alone.`) || !strings.Contains(p, `<a id="project-env-edit" class="button" href="/definitions/env?project=shop">Edit environment</a>`) {
		t.Fatalf("an admin's page of a project without an env does not offer to add one:\n%s", p)
	}
	d.Project.Env = []task.EnvVar{{Name: "REGION", Value: "cn-east"}}
	if _, err := site.srv.store.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatal(err)
	}
	if _, p := httpcall.Form(t, admin, http.MethodGet, site.base+"/triggers?project=shop&lang=zh", nil); !strings.Contains(p, `href="/definitions/env?project=shop">编辑环境变量</a>`) {
		t.Fatalf("an admin's project page in Chinese does not offer 编辑环境变量:\n%s", p)
	}
	if _, p := httpcall.Form(t, admin, http.MethodGet, site.base+"/definitions/env?project=shop&lang=zh", nil); !strings.Contains(p, `<h1>编辑环境变量 `) || !strings.Contains(p, `name="env_name" value="REGION"`) {
		t.Fatalf("the Edit environment form does not hold the project's env, in Chinese:\n%s", p)
	}
	if _, p := httpcall.Form(t, admin, http.MethodGet, site.base+"/definitions?project=shop", nil); !strings.Contains(p, "env:\n  REGION: cn-east\n") {
		t.Fatalf("the project's file on Definitions does not hold its env:\n%s", p)
	}
	reader := consoleClient(t)
	site.signIn(t, reader, site.tokens[apitoken.Read])
	if _, p := httpcall.Form(t, reader, http.MethodGet, site.base+"/triggers?project=shop&lang=en", nil); strings.Contains(p, "project-env-edit") || !strings.Contains(p, "<code>REGION</code>") {
		t.Fatalf("a read token's project page offers to edit the env, or does not list it:\n%s", p)
	}
}
