package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The trigger page's Resume and the project page's Resume project take an
// optional note, as their pauses do: it is kept with the resume's audit
// record, the trigger's page says it beside the state while the resume
// is its newest record, in English and in Chinese, and a note that is no
// one line of text is refused on the page with what was typed kept.
func TestResumeFormsTakeANoteThePageShowsWithTheResume(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	trig := site.base + "/triggers/" + site.triggerID
	post := func(path, note string) (*http.Response, string) {
		t.Helper()
		return httpcall.Form(t, c, http.MethodPost, site.base+path, url.Values{"csrf": {csrf}, "note": {note}})
	}
	post("/triggers/"+site.triggerID+"/pause", "db upgrade")
	if _, page := httpcall.Form(t, c, http.MethodGet, trig+"?lang=zh", nil); !strings.Contains(page, `<input id="resume-note" name="note" maxlength="1000" value="" aria-label="备注（可选）" placeholder="备注（可选）"><button id="resume" type="submit">`) {
		t.Fatalf("a paused trigger's page offers Resume without a note:\n%s", page)
	}
	if resp, page := post("/triggers/"+site.triggerID+"/resume?lang=en", "two\nlines"); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(page, `id="resume-note" name="note" maxlength="1000" value="two
lines"`) || !strings.Contains(page, `id="pause-error"`) {
		t.Fatalf("a resume with a note of two lines: %d, want 400 on the trigger's page with the note kept:\n%s", resp.StatusCode, page)
	}
	post("/triggers/"+site.triggerID+"/resume", "db back up")
	for lang, want := range map[string]string{"en": `<span id="resume-said">resumed: db back up</span>`, "zh": `<span id="resume-said">恢复备注：db back up</span>`} {
		if _, page := httpcall.Form(t, c, http.MethodGet, trig+"?lang="+lang, nil); !strings.Contains(page, want) || !strings.Contains(page, `<td data-label="`+map[string]string{"en": "Note", "zh": "备注"}[lang]+`"><bdi>db back up</bdi></td>`) {
			t.Errorf("%s: the resumed trigger's page does not say %q beside its state and in its audit:\n%s", lang, want, page)
		}
	}
	post("/projects/shop/pause", "freeze")
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=shop&lang=en", nil); !strings.Contains(page, `<input name="note" id="project-resume-note" maxlength="1000" value="" aria-label="Note (optional)"`) {
		t.Fatalf("a paused project's page offers Resume project without a note:\n%s", page)
	}
	if resp, page := post("/projects/shop/resume?lang=zh", "a\u202eb"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="project-resume-note" maxlength="1000" value="a`) ||
		!strings.Contains(page, `id="project-pause-error"`) {
		t.Fatalf("a project resume with a text-direction character in its note: %d, want 400 on the project's page with the note kept:\n%s", resp.StatusCode, page)
	}
	if resp, _ := post("/projects/shop/resume", "release shipped"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the project's resume: %d, want 303", resp.StatusCode)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, trig+"?lang=en", nil); !strings.Contains(page, `<span id="resume-said">resumed: release shipped</span>`) {
		t.Errorf("the trigger its project's resume resumed does not say the resume's note:\n%s", page)
	}
}
