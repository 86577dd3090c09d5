package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// Where the commands run on other hosts (a cluster replica), the nav has
// no Dependencies and the page says, in the page's language, that each
// worker's host installs its own; its forms change nothing.
func TestAServerWhoseWorkersRunTheCommandsSaysDependenciesAreInstalledOnEachWorkersHost(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	if w := site.send(apitoken.Admin, "/runs", nil); strings.Contains(w.Body.String(), `id="nav-dependencies"`) {
		t.Error("the nav offers Dependencies on a server whose workers run the commands")
	}
	for _, s := range []struct {
		path string
		form url.Values
		want string
	}{{"/dependencies?lang=en", nil, "installed on each worker&#39;s host"}, {"/dependencies?lang=zh", nil, "每个 worker 所在的主机上"},
		{"/dependencies/add?lang=en", url.Values{"kind": {"node"}, "names": {"axios"}}, "installed on each worker&#39;s host"},
		{"/dependencies/remove?lang=en", url.Values{"kind": {"node"}, "name": {"axios"}}, "installed on each worker&#39;s host"}} {
		w := site.send(apitoken.Admin, s.path, s.form)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), s.want) || strings.Contains(w.Body.String(), `id="dep-add-`) {
			t.Errorf("%s: %d; want the page saying %s:\n%s", s.path, w.Code, s.want, w.Body)
		}
	}
}
