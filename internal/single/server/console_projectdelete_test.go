package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The triggers list of an active project offers no deletion; once the
// project is archived it offers an admin Delete project behind its
// question, in English and in Chinese, and confirming it deletes the
// project and says so on the list of every project.
func TestConsoleDeletesAnArchivedProjectFromItsTriggersListBehindAQuestion(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop", nil); strings.Contains(page, `id="project-delete"`) {
		t.Fatal("the triggers list of an active project offers its deletion")
	}
	code, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", site.tokens[apitoken.Admin], []byte("project: shop\nstatus: archived\n"))
	if code != http.StatusOK {
		t.Fatalf("archive shop: %d %s", code, body)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop", nil)
	if !strings.Contains(page, `id="project-delete-ask">Delete project…<`) || !strings.Contains(page, `action="/projects/shop/delete"`) ||
		!strings.Contains(page, "Yes, delete project shop and everything of it") {
		t.Fatalf("the triggers list of archived project shop offers no deletion behind a question:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=zh", nil); !strings.Contains(page, "确认删除项目 shop 及其全部内容") {
		t.Fatalf("the Chinese page lacks the deletion's question:\n%s", page)
	}
	httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang=en", nil)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/projects/shop/delete", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d, want 303:\n%s", resp.StatusCode, page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+resp.Header.Get("Location"), nil); !strings.Contains(page, `id="project-deleted">Project shop was deleted with everything of it.<`) {
		t.Fatalf("the page after the deletion does not say it:\n%s", page)
	}
	if code, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/projects/shop", site.tokens[apitoken.Admin], nil); code != http.StatusNotFound {
		t.Fatalf("project shop after its deletion: %d %s; want 404", code, body)
	}
}
