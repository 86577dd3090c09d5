package server

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The file the console's crontab import previews starts with a header
// true of the server converting it: ql-edge's concurrency as it runs (1),
// not the machine's CPU count, and ql-edge's command for a Run's log, not
// ql's.
func TestTheConsolesImportedFileSaysTheConcurrencyAndLogCommandOfItsServer(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true", func(c *Config) { c.Binary, c.Concurrency = "ql-edge", 1 })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "panel", "0 3 * * * /opt/backup.sh\n"))
	text := html.UnescapeString(preview)
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, "at most --concurrency commands run at once (1 on the server that converted this file)") ||
		!strings.Contains(text, "(ql-edge runs logs)") || strings.Contains(text, "CPU count") || strings.Contains(text, "(ql runs logs)") {
		t.Errorf("the import's preview on ql-edge: %d, want its file's header to say concurrency 1 and ql-edge runs logs:\n%s", resp.StatusCode, text)
	}
}
