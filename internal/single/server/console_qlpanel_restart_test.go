package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// A panel import previewed before the server stopped imports after it
// starts again on the same data directory: the preview's sum is keyed by
// the stored session, not by the process.
func TestAPanelPreviewMadeBeforeARestartImportsAfterIt(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	data := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/preview?lang=en", panelFields(csrf, data))
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="qlp-preview"`) {
		t.Fatalf("the preview: %d:\n%s", resp.StatusCode, preview)
	}
	site.restart(t)
	resp, applied := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/qinglong/apply?lang=en", panelApplyForm(t, preview))
	if resp.StatusCode != http.StatusOK || !strings.Contains(applied, `id="qlp-applied"`) || strings.Contains(applied, `id="qlp-stale"`) {
		t.Fatalf("the Import after the restart: %d; want the preview imported, not stale:\n%s", resp.StatusCode, applied)
	}
	if names, _ := (process.Secrets{Path: LayoutOf(site.dir).Secrets}).Names(); len(names) == 0 {
		t.Error("the Import after the restart stored no secret")
	}
}
