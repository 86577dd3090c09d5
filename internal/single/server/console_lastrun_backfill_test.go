package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A trigger whose newest Run a backfill made (of 2022's occurrence, at
// 2021-12-31 19:00 UTC) shows it in the triggers
// list at its admission, marked a backfill in the page's language, not at
// the older occurrence it fills, which would read as if it had just
// happened then.
func TestTheTriggersListMarksABackfillsRunAtItsAdmission(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	if resp, page, n := backfillPage(t, site, c, csrf, "backfill", "2021-12-31T00:00", "2022-01-02T00:00"); resp.StatusCode != http.StatusOK || n != 1 {
		t.Fatalf("backfill of 2022's occurrence: %d counting %d, want one Run:\n%s", resp.StatusCode, n, page)
	}
	ids := runIDsOf(t, site)
	if len(ids) != 1 {
		t.Fatalf("the backfill made the Runs %v, want one", ids)
	}
	cell := func(lang string) string {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?lang="+lang, nil)
		_, td, ok := strings.Cut(page, `class="last-run">`)
		if !ok {
			t.Fatalf("the triggers list has no last-run column:\n%s", page)
		}
		td, _, _ = strings.Cut(td, "</td>")
		return td
	}
	year := time.Now().UTC().Format("2006-")
	for lang, mark := range map[string]string{"en": "backfill", "zh": "回填"} {
		td := cell(lang)
		if !strings.Contains(td, `href="/runs/`+ids[0]+`"`) || !strings.Contains(td, `<span class="last-origin">`+mark+`</span>`) ||
			strings.Contains(td, "2021-12-31") || !strings.Contains(td, year) {
			t.Errorf("the trigger's last run in %s: %q; want %s at its admission this year (%s…), marked %s, not at 2021-12-31", lang, td, ids[0], year, mark)
		}
	}
}
