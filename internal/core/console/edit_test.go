package console

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// The Edit task and Edit schedule buttons are offered on a trigger's page
// to an admin where the server can publish, and to no one elsewhere (a
// cluster replica's runtime role may not publish), whose forms say, in
// the page's language, where to apply a change instead, as New task's do;
// each form links back to the triggers list showing what it edits.
func TestTheEditFormsAreOfferedToAnAdminWhereTheServerCanPublish(t *testing.T) {
	t.Parallel()
	replica := newBatchSite(t, nil)
	server := newBatchSite(t, canPublish)
	links := []string{`id="edit-task"`, `id="edit-schedule"`}
	for _, c := range []struct {
		site  *batchSite
		scope apitoken.Scope
		offer bool
	}{{server, apitoken.Admin, true}, {server, apitoken.Operate, false}, {replica, apitoken.Admin, false}} {
		page := c.site.do(c.scope, "/triggers/"+c.site.triggers["a"], nil).Body.String()
		for _, l := range links {
			if strings.Contains(page, l) != c.offer {
				t.Errorf("%s (can publish %v): offers %s %v, want %v", c.scope, c.site.c.cfg.Definitions != nil, l, !c.offer, c.offer)
			}
		}
	}
	for _, path := range []string{"/definitions/task?project=shop&task=report&lang=zh", "/definitions/schedule?project=shop&trigger=a&lang=zh"} {
		w := replica.do(apitoken.Admin, path, nil)
		if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusConflict || !strings.Contains(page, asShown(refusalsZH[refusalCannotPublish])) {
			t.Errorf("%s on a server that cannot publish: %d, want 409 saying where to apply:\n%s", path, w.Code, page)
		}
		if w := server.do(apitoken.Admin, path, nil); w.Code != http.StatusOK {
			t.Errorf("%s on a server that can publish: %d\n%s", path, w.Code, w.Body)
		}
	}
	// Each form leads back to the list showing what it edits, found by
	// its name: a phone has no back button of the page's own.
	for path, back := range map[string]string{"/definitions/task?project=shop&task=report&lang=zh": "/triggers?project=shop&amp;q=report",
		"/definitions/schedule?project=shop&trigger=a&lang=zh": "/triggers?project=shop&amp;q=a"} {
		if page := server.do(apitoken.Admin, path, nil).Body.String(); !strings.Contains(page, `<a id="edit-back" href="`+back+`">返回触发器列表</a>`) {
			t.Errorf("%s does not lead back to %s:\n%s", path, back, page)
		}
	}
}
