package server

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A crontab of the qinglong panel's tasks (a task line) imported into a
// project with no env is previewed with a note, in English and Chinese,
// that the panel gave every task its environment variables, linking the
// project's Edit environment page; the preview still offers the confirm.
// A crontab of no panel task has no such note.
func TestAPanelCrontabImportedIntoAProjectWithoutEnvNotesThePanelsEnvironment(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, l := range []struct{ lang, want string }{
		{"en", "The qinglong panel gave every task its environment variables"},
		{"zh", "青龙面板会给每个任务带上它的环境变量"},
	} {
		resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang="+l.lang, importForm(csrf, "panel", panelCrontab))
		text := html.UnescapeString(preview)
		if resp.StatusCode != http.StatusOK || !strings.Contains(text, l.want) || !strings.Contains(text, `href="/definitions/env?project=panel"`) || !strings.Contains(text, `id="def-confirm"`) {
			t.Errorf("the panel crontab's preview (%s): %d, want the note %q linking the project's Edit environment, and the confirm:\n%s", l.lang, resp.StatusCode, l.want, text)
		}
	}
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "panel", "0 3 * * * /opt/backup.sh\n"))
	if resp.StatusCode != http.StatusOK || strings.Contains(preview, `id="imp-panel-env"`) {
		t.Errorf("a crontab of no panel task: %d, want no note of the panel's environment:\n%s", resp.StatusCode, preview)
	}
}
