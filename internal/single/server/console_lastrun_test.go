package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The triggers list shows each trigger's last Run — its state, linking to
// it, and when it was scheduled — in the page's language, and a dash for
// a trigger that has none yet.
func TestTheTriggersListShowsEachTriggersLastRun(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	cell := func(page string) string {
		_, td, ok := strings.Cut(page, `class="last-run">`)
		if !ok {
			t.Fatalf("the triggers list has no last-run column:\n%s", page)
		}
		td, _, _ = strings.Cut(td, "</td>")
		return td
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang=en", nil); cell(page) != "—" {
		t.Errorf("a trigger without a Run shows %q as its last run, want a dash", cell(page))
	}
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang=zh", nil)
	if td := cell(page); !strings.Contains(td, `href="/runs/`+id+`"`) || !strings.Contains(td, "state-") || !strings.Contains(page, "最近一次运行") {
		t.Errorf("the trigger's last run after run now: %q, want a link to %s with its state, headed in Chinese", td, id)
	}
}
