package console

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/project"
)

// An enable or disable refused because the trigger's project is archived
// says so of the enable or disable, in each language: not the sentence of
// a publish to an archived project, which speaks of publishing.
func TestAnArchivedProjectsEnableAndDisableAreRefusedInTheirOwnWords(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	d, err := b.st.TriggerDetail(t.Context(), b.triggers["a"], 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.ProjectSave(t.Context(), project.Project{ID: d.ProjectID, Name: "shop", Status: project.Archived}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, lang, want string }{
		{"/triggers/" + b.triggers["off"] + "/enable", "en", `cannot enable trigger "off": its project is archived`},
		{"/triggers/" + b.triggers["a"] + "/disable", "en", `cannot disable trigger "a": its project is archived`},
		{"/triggers/" + b.triggers["off"] + "/enable", "zh", "无法启用触发器“off”：它所属的项目已归档"},
		{"/triggers/" + b.triggers["a"] + "/disable", "zh", "无法停用触发器“a”：它所属的项目已归档"},
	} {
		w := b.do(apitoken.Admin, c.path+"?lang="+c.lang, url.Values{})
		body := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusConflict || !strings.Contains(body, c.want) || strings.Contains(body, "发布") {
			t.Errorf("%s in %s: %d; want 409 saying %q, not of publishing\n%s", c.path, c.lang, w.Code, c.want, body)
		}
	}
}
