package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A Run's page names the task it ran, at the revision it ran, in the
// page's language.
func TestARunsPageNamesTheTaskItRan(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	for lang, want := range map[string]string{"en": `<dt>Task</dt><dd id="run-task">report <small>(revision 1)</small>`, "zh": `<dt>任务</dt><dd id="run-task">report <small>（版本 1）</small>`} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang="+lang, nil); !strings.Contains(page, want) {
			t.Errorf("the Run's page in %s does not say %s:\n%s", lang, want, page)
		}
	}
}
