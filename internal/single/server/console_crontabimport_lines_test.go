package server

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// shopCrontab's entry on line 4 is named nightly, as project shop's
// trigger of its task report is: imported into shop it would move that
// trigger to another task, which the store refuses.
const shopCrontab = "# shop's jobs\nSHELL=/bin/sh\n*/5 * * * * /usr/local/bin/sweep\n0 3 * * * /usr/local/bin/nightly\n0 4 * * * /usr/local/bin/audit\n"

// placeOfRefusal is where the definitions page says an error is.
var placeOfRefusal = regexp.MustCompile(`<li><span class="line">([^<]*)</span>`)

// The store's refusal of the file a crontab import converted is said at
// the crontab line whose entry made the refused trigger, in the page's
// language — the import's user saw the crontab, not the file, whose line
// numbers point nowhere they can look — at the preview, and at the
// confirm of a preview the store refuses since.
func TestACrontabImportsRefusalIsSaidAtTheCrontabLineOfItsEntry(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	places := func(page string) []string {
		var out []string
		for _, m := range placeOfRefusal.FindAllStringSubmatch(page, -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
		return out
	}
	for l, want := range map[string]string{"en": "crontab line 4", "zh": "crontab 第 4 行"} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang="+l, importForm(csrf, "shop", shopCrontab))
		if got := places(page); resp.StatusCode != http.StatusBadRequest || len(got) != 1 || got[0] != want || !strings.Contains(page, "nightly") {
			t.Errorf("the preview in %s: %d, refusals at %q; want 400, one refusal at %s naming nightly:\n%s", l, resp.StatusCode, got, want, page)
		}
	}

	// A preview the store accepts, then the trigger audit made elsewhere,
	// bound to another task, before the confirm.
	text := strings.Replace(shopCrontab, "/usr/local/bin/nightly", "/usr/local/bin/restock", 1)
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "shop", text))
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="def-confirm"`) {
		t.Fatalf("the preview of a crontab the store accepts: %d, want 200 with the confirm:\n%s", resp.StatusCode, preview)
	}
	site.applyOverAPI(t, []byte("project: shop\ntasks:\n  - name: other\n    script: \"true\"\ntriggers:\n  - name: audit\n    task: other\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n"), "shop")
	resp, page := confirmPreview(t, c, site.base, preview)
	if got := places(page); resp.StatusCode != http.StatusBadRequest || len(got) != 1 || got[0] != "crontab line 5" || !strings.Contains(page, "audit") {
		t.Fatalf("the confirm refused: %d, refusals at %q; want 400, one refusal at crontab line 5 naming audit:\n%s", resp.StatusCode, got, page)
	}
}

// sentCrontabArea is the crontab text area of the import form.
var sentCrontabArea = regexp.MustCompile(`(?s)<textarea id="imp-crontab"[^>]*>(.*?)</textarea>`)

// A crontab import the store refuses, at the preview or at a confirm it
// refuses since, shows the import form holding the crontab the user sent,
// with the refusals at its lines and a sentence saying to fix it there,
// never the converted file in an editable text area: they did not write
// that file, and a fix made to it would leave their crontab as it was.
func TestARefusedCrontabImportShowsTheCrontabSentForFixingNotTheConvertedFile(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	shows := func(step string, resp *http.Response, page, sent string) {
		t.Helper()
		m := sentCrontabArea.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusBadRequest || m == nil || html.UnescapeString(m[1]) != sent {
			t.Fatalf("%s: %d; want 400 and the import form holding the crontab sent:\n%s", step, resp.StatusCode, page)
		}
		if strings.Contains(page, `id="def-yaml"`) || strings.Contains(page, "tasks:") || !strings.Contains(page, `id="imp-fix"`) {
			t.Fatalf("%s: the page shows the converted file, or no word on fixing the crontab:\n%s", step, page)
		}
	}
	for _, l := range []string{"en", "zh"} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang="+l, importForm(csrf, "shop", shopCrontab))
		shows("the preview in "+l, resp, page, shopCrontab)
	}

	text := strings.Replace(shopCrontab, "/usr/local/bin/nightly", "/usr/local/bin/restock", 1)
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "shop", text))
	site.applyOverAPI(t, []byte("project: shop\ntasks:\n  - name: other\n    script: \"true\"\ntriggers:\n  - name: audit\n    task: other\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n"), "shop")
	resp, page := confirmPreview(t, c, site.base, preview)
	shows("the confirm refused", resp, page, text)
}
