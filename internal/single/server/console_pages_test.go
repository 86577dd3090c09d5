package server

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// runNow runs the site's trigger now through the console and returns the
// new Run's id.
func (s *consoleSite) runNow(t *testing.T, c *http.Client, csrf string) string {
	t.Helper()
	resp, _ := httpcall.Form(t, c, http.MethodPost, s.base+"/triggers/"+s.triggerID+"/run", url.Values{"csrf": {csrf}})
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	if resp.StatusCode != http.StatusSeeOther || id == "" {
		t.Fatalf("run now: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return id
}

// cancel cancels a Run through the console.
func (s *consoleSite) cancel(t *testing.T, c *http.Client, csrf, id string) {
	t.Helper()
	httpcall.Form(t, c, http.MethodPost, s.base+"/runs/"+id+"/cancel", url.Values{"csrf": {csrf}})
}

// Every time a page lists is in the zone the page names: the runs list,
// the run page, the tokens page, the triggers list and a trigger's page,
// in the viewer's zone.
func TestConsoleListsTimesInTheZoneItNames(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	u, _ := url.Parse(site.base)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "ql_tz", Value: "Asia/Shanghai", Path: "/"}})
	for _, path := range []string{"/runs", "/runs/" + id, "/tokens", "/triggers", "/triggers/" + site.triggerID} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		if !strings.Contains(page, " UTC&#43;08:00") || strings.Contains(page, " UTC<") || strings.Contains(page, " UTC ") {
			t.Errorf("%s with the viewer in Asia/Shanghai does not list its times in UTC+08:00 only:\n%s", path, page)
		}
	}
}

// The Runs page's trigger filter takes what people type: the trigger's
// name or project/name, as `ql runs list --trigger` does, besides its id;
// each lists that trigger's Runs.
func TestTheRunsPageFiltersByATriggersNameOrProjectAndName(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	for _, ref := range []string{"nightly", "shop/nightly", site.triggerID} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?"+url.Values{"trigger": {ref}}.Encode(), nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, id) {
			t.Errorf("/runs?trigger=%s answered %d without the trigger's Run %s:\n%s", ref, resp.StatusCode, id, page)
		}
	}
}

// Run now's form carries a request id: sent twice, it makes one Run.
func TestConsoleRunNowMakesOneRunPerForm(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	for _, path := range []string{"/triggers", "/triggers/" + site.triggerID} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		m := requestField.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s's Run now form carries no request id:\n%s", path, page)
		}
		form := url.Values{"csrf": {csrf}, "request": {m[1]}}
		first, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", form)
		again, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", form)
		loc := first.Header.Get("Location")
		if first.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") || again.Header.Get("Location") != loc {
			t.Fatalf("run now twice with %s's form: %d to %q, then to %q; want one Run", path, first.StatusCode, loc, again.Header.Get("Location"))
		}
		httpcall.Form(t, c, http.MethodPost, site.base+loc+"/cancel", url.Values{"csrf": {csrf}})
	}
}

// A paused trigger is shown paused on the list and its page, with no next
// fire (its cursor is a time that passes without a Run), and the
// overview's next fires leave it out.
func TestConsoleShowsAPausedTriggerPausedWithNoNextFire(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	// The first round sets the schedule's cursor; only then is there a
	// next fire to list.
	waitFor(t, "the overview to list the active trigger's next fire", 10*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
		return strings.Contains(page, "/triggers/"+site.triggerID)
	})
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/pause", url.Values{"csrf": {csrf}, "note": {"freeze"}}); !tookForm(resp) {
		t.Fatalf("pause: %d", resp.StatusCode)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers", nil); !strings.Contains(page, `class="trigger-state">paused<`) || strings.Contains(page, `<ol class="fires">`) {
		t.Errorf("the triggers list does not show the paused trigger paused without fires:\n%s", page)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil)
	if !strings.Contains(page, `id="pause-state">paused — freeze<`) || !strings.Contains(page, `id="next-fire">—<`) ||
		!strings.Contains(page, `<span class="fires-none">none while paused</span>`) || strings.Contains(page, `<ol class="fires">`) {
		t.Errorf("the paused trigger's page does not say paused, with no next fire (said as no fire, not as a numbered first one):\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil); strings.Contains(page, "/triggers/"+site.triggerID) {
		t.Errorf("the overview lists the paused trigger among the next fires:\n%s", page)
	}
}

// A trigger past its endAt reads "ended", with no next fire anywhere: its
// stored cursor lies past the end and is no time it fires at.
func TestConsoleShowsAnEndedTriggerEndedWithNoNextFire(t *testing.T) {
	t.Parallel()
	end := time.Now().Add(-time.Hour).UnixMilli()
	site := startConsoleSiteWith(t, trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, EndAtMs: end})
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	// The first round finds the end passed and parks the cursor past it.
	waitFor(t, "the triggers list to show the trigger ended", 10*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers", nil)
		return strings.Contains(page, `class="trigger-state">ended<`)
	})
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil)
	if !strings.Contains(page, `id="next-fire">ended<`) || !strings.Contains(page, "none: the trigger has ended") {
		t.Errorf("the ended trigger's page does not say ended, with no next fire:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil); strings.Contains(page, "/triggers/"+site.triggerID) {
		t.Errorf("the overview lists the ended trigger among the next fires:\n%s", page)
	}
}

// A disabled trigger offers no Run now, and its state reads "disabled"
// alone.
func TestConsoleOffersNoRunNowForADisabledTrigger(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/disable", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	for path, state := range map[string]string{"/triggers": `class="trigger-state">disabled<`, "/triggers/" + site.triggerID: `id="pause-state">disabled<`} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil)
		if strings.Contains(page, "/run\"") || !strings.Contains(page, state) {
			t.Errorf("%s offers Run now for the disabled trigger or does not say disabled:\n%s", path, page)
		}
	}
}

// A disabled trigger's page, and the page of a trigger of an archived
// project, offers neither Pause nor Resume, even to a trigger paused
// before, and says why in the page's language, as it does for the
// backfill; once the trigger is enabled again its page offers Resume.
func TestConsoleOffersNoPauseOrResumeForADisabledOrArchivedTrigger(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, verb := range []string{"pause", "disable"} {
		if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/"+verb, url.Values{"csrf": {csrf}}); !tookForm(resp) {
			t.Fatalf("%s: %d", verb, resp.StatusCode)
		}
	}
	offersNone := func(what string) {
		t.Helper()
		for lang, why := range map[string]string{
			"en": "Pause and resume are not offered while the trigger is disabled or its project is archived: nothing of it runs.",
			"zh": "触发器停用或其项目归档期间不提供暂停与恢复：它的任何运行都不会进行。",
		} {
			_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang="+lang, nil)
			if strings.Contains(page, `/pause"`) || strings.Contains(page, `/resume"`) || !strings.Contains(page, `id="pause-off">`+why) {
				t.Errorf("the %s page of %s offers Pause or Resume, or does not say why it offers neither:\n%s", lang, what, page)
			}
		}
	}
	offersNone("a paused trigger that was then disabled")
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/enable", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Fatalf("enable: %d", resp.StatusCode)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil); !strings.Contains(page, `/resume"`) || strings.Contains(page, `id="pause-off"`) {
		t.Errorf("the page of the paused trigger enabled again does not offer Resume:\n%s", page)
	}
	site.archiveShop(t)
	offersNone("a trigger of an archived project")
}

// An error is a page in the console's layout and language, with the
// message saying what was wrong and a way back; a store's internal error
// is logged, not shown.
func TestConsoleErrorsArePagesInTheLayoutAndLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/not-an-id?lang=zh", nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(page, "<h1>请求无效</h1>") || !strings.Contains(page, `id="error-back"`) || !strings.Contains(page, "ql triggers list") {
		t.Errorf("an unknown trigger id in Chinese: %d %s, want a 400 page titled in Chinese with the message and a way back:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
	long := strings.Repeat("x", 1001)
	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/pause", url.Values{"csrf": {csrf}, "note": {long}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "最多 1000 个字符") || strings.Contains(page, "constraint") {
		t.Errorf("a pause note of 1001 characters: %d, want 400 naming the limit in Chinese:\n%s", resp.StatusCode, page)
	}
	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/pause", url.Values{"csrf": {csrf}, "note": {strings.Repeat("x", 20<<10)}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(page, "16 KiB") {
		t.Errorf("a form of 20 KiB: %d, want 413 saying the limit:\n%s", resp.StatusCode, page)
	}
	signedOut := consoleClient(t)
	resp, page = httpcall.Form(t, signedOut, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", url.Values{"csrf": {"x"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `id="error-signin" href="/signin"`) {
		t.Errorf("an action without a session: %d, want 401 with a way to sign in:\n%s", resp.StatusCode, page)
	}
}

// A refused token form comes back with what was typed and why; a refused
// runs filter comes back with its fields and why.
func TestConsoleFormsKeepWhatWasTypedOnAnError(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/tokens", url.Values{"csrf": {csrf}, "name": {"deploy-bot"}, "scope": {"operate"}, "expires": {"soon"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="tok-error"`) || !strings.Contains(page, `value="deploy-bot"`) ||
		!strings.Contains(page, `value="soon"`) || !strings.Contains(page, `value="operate" selected`) {
		t.Errorf("a token with expiry \"soon\": %d, want the form back with its values and the error:\n%s", resp.StatusCode, page)
	}
	resp, page = httpcall.Form(t, c, http.MethodGet, site.base+"/runs?state=failed&from=garbage", nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="runs-error"`) || !strings.Contains(page, `value="garbage"`) ||
		!strings.Contains(page, `value="failed" selected`) {
		t.Errorf("runs from \"garbage\": %d, want the filter back with its values and the error:\n%s", resp.StatusCode, page)
	}
}

// The token form says the range of an expiry (1m to 3650d) in its help
// and in its refusal, in English as in Chinese: neither left it to be
// learnt from a second refusal, and the refusal's examples are durations
// the range takes (never 500ms or 30s, which it would refuse too).
func TestTheTokenFormSaysTheExpiryRangeInEveryLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for lang, want := range map[string][]string{"en": {"from 1m to 3650d, e.g. 90d, 12h or 1d12h; empty never expires", "is not a duration from 1m to 3650d: write a number with a unit (ms, s, m, h or d), e.g. 5m, 2h, 1d or 1d12h"}, "zh": {"范围 1m 到 3650d，例如 90d、12h 或 1d12h；留空则永不过期", "须是 1m 到 3650d 之间的时长：写数字加单位（ms、s、m、h 或 d），如 5m、2h、1d 或 1d12h。"}} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/tokens?lang="+lang, nil)
		if !strings.Contains(page, want[0]) {
			t.Errorf("the token form's help in %s lacks %q:\n%s", lang, want[0], page)
		}
		_, page = httpcall.Form(t, c, http.MethodPost, site.base+"/tokens?lang="+lang, url.Values{"csrf": {csrf}, "name": {"ci"}, "scope": {"read"}, "expires": {"soon"}})
		_, refusal, _ := strings.Cut(page, `id="tok-error"`)
		if !strings.Contains(refusal, want[1]) || strings.Contains(refusal, "500ms") {
			t.Errorf("an expiry of \"soon\" in %s: the refusal lacks %q:\n%s", lang, want[1], page)
		}
	}
}

// The runs filter offers the projects by name; the project's name in the
// address is taken for its id.
func TestConsoleRunsFilterOffersTheProjectsByName(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?project=shop", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `selected>shop</option>`) || !strings.Contains(page, id) {
		t.Errorf("runs of project shop by name: %d, want its run listed and shop chosen:\n%s", resp.StatusCode, page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil); !strings.Contains(page, `href="/runs?trigger=`+site.triggerID+`"`) {
		t.Errorf("the trigger's page does not link to its runs:\n%s", page)
	}
}

// A list page or the definitions page given a project by its id, as older
// links give it, sends the browser to the same page naming the project by
// name, its other filters kept: the picker then shows the project chosen
// and the listing is the project's. An id no project has is refused on
// the page, in its language.
func TestAProjectGivenByItsIDIsChosenByName(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	file := "project: quiet\ntasks:\n  - name: job\n    script: echo hi\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("apply a project without triggers: %d\n%s", resp.StatusCode, page)
	}
	for _, tc := range []struct{ path, query, chosen, listed string }{
		{"/runs", "trigger=" + site.triggerID + "&lang=zh", `<option value="shop" selected>shop</option>`, id},
		{"/triggers", "q=night&lang=zh", `<option value="shop" selected>shop</option>`, `id="trigger-` + site.triggerID + `"`},
		{"/notifications", "state=dead&lang=en", `<option value="shop" selected>shop</option>`, `id="notifications"`},
		{"/definitions", "lang=en", `id="def-project" name="project" list="def-projects" value="shop"`, "name: nightly"},
	} {
		resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+tc.path+"?project="+site.projectID+"&"+tc.query, nil)
		to, err := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || err != nil || to.Path != tc.path || to.Query().Get("project") != "shop" {
			t.Errorf("%s?project=%s: %d to %q; want a redirect to %s naming project shop", tc.path, site.projectID, resp.StatusCode, resp.Header.Get("Location"), tc.path)
			continue
		}
		kept, _ := url.ParseQuery(tc.query)
		for k := range kept {
			if to.Query().Get(k) != kept.Get(k) {
				t.Errorf("%s?project=%s: the redirect to %s drops %s=%s", tc.path, site.projectID, to, k, kept.Get(k))
			}
		}
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+to.String(), nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, tc.chosen) || !strings.Contains(page, tc.listed) {
			t.Errorf("%s: %d; want project shop chosen (%s) and %s listed:\n%s", to, resp.StatusCode, tc.chosen, tc.listed, page)
		}
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers?project=quiet", nil); strings.Contains(page, `id="trigger-`) || !strings.Contains(page, `<option value="quiet" selected>quiet</option>`) {
		t.Errorf("the triggers of project quiet, which has none: want none listed and quiet chosen:\n%s", page)
	}
	nobody := "01900000-0000-7000-8000-000000000000"
	for lang, want := range map[string]string{"en": "no project here has the id " + nobody, "zh": "此服务器上没有 ID 为 " + nobody + " 的项目"} {
		for _, path := range []string{"/runs", "/triggers", "/notifications"} {
			resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path+"?project="+nobody+"&lang="+lang, nil)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) {
				t.Errorf("%s of a project id no one has, in %s: %d, want 400 saying %q:\n%s", path, lang, resp.StatusCode, want, page)
			}
		}
	}
}

// Back to editing from a preview returns the text as it was sent, a new
// project's included.
func TestConsoleDefinitionsBackToEditingKeepsTheText(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	const file = "project: brand-new\ntasks: []\n"
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/preview", url.Values{"csrf": {csrf}, "yaml": {file}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-back"`) || !strings.Contains(page, `formaction="/definitions"`) {
		t.Fatalf("preview of a new project: %d, want a Back to editing button posting the text:\n%s", resp.StatusCode, page)
	}
	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/definitions", url.Values{"csrf": {csrf}, "yaml": {file}, "project": {"brand-new"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-yaml"`) || !strings.Contains(page, "project: brand-new") || !strings.Contains(page, `<option value="shop">`) {
		t.Errorf("back to editing: %d, want the editor with the text and the projects:\n%s", resp.StatusCode, page)
	}
}

// The language switch keeps the page and its filters; on a form's answer
// (a preview, shown on its project's definitions page) it goes to that
// page, without the answer shown once.
func TestConsoleLanguageSwitchKeepsThePage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?state=failed", nil); !strings.Contains(page, `href="/runs?lang=zh&amp;state=failed"`) {
		t.Errorf("the runs page filtered by state does not switch language in place:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/preview", url.Values{"csrf": {csrf}, "yaml": {"project: shop\n"}}); !strings.Contains(page, `href="/definitions?lang=zh&amp;project=shop"`) {
		t.Errorf("the preview's language switch does not go to the definitions page:\n%s", page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?lang=zh", nil); !strings.Contains(page, "<th>运行</th>") || strings.Contains(page, "<th>Run</th>") {
		t.Errorf("the Chinese runs page has an English header:\n%s", page)
	}
}

// Only the stylesheet, the script and the icon are served without a
// session: no listing, no template. Every page names the icon, so a
// browser does not ask for /favicon.ico, which is no page.
func TestConsoleServesOnlyItsStylesheetScriptAndIcon(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	for path, want := range map[string]int{"/assets/app.css": 200, "/assets/app.js": 200, "/assets/icon.svg": 200, "/assets/": 404, "/assets/layout.html": 404, "/assets/signin.html": 404} {
		if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+path, nil); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/assets/icon.svg", nil); resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("the icon's type: %q, want image/svg+xml", resp.Header.Get("Content-Type"))
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/signin", nil); !strings.Contains(page, `<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">`) {
		t.Errorf("the sign-in page names no icon:\n%s", page)
	}
	resp, _ := httpcall.Form(t, c, http.MethodPut, site.base+"/runs", nil)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("PUT /runs: %d, Allow %q, CSP %q; want 405 allowing GET with the security headers", resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Security-Policy"))
	}
}

// A failed sign-in keeps the user name (never the password); a revoked
// token is confirmed on the tokens page.
func TestConsoleKeepsTheUserNameAndConfirmsARevoke(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	form, _ := site.signinForm(t, c)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {form}, "user": {site.owner}, "password": {"wrong password"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `value="`+site.owner+`"`) || strings.Contains(page, "wrong password") {
		t.Errorf("a failed sign-in: %d, want the user name kept and the password dropped:\n%s", resp.StatusCode, page)
	}
	admin := consoleClient(t)
	csrf := site.signIn(t, admin, site.tokens[apitoken.Admin])
	resp, _ = httpcall.Form(t, admin, http.MethodPost, site.base+"/tokens/console-read/revoke", url.Values{"csrf": {csrf}})
	loc := resp.Header.Get("Location")
	if _, page = httpcall.Form(t, admin, http.MethodGet, site.base+loc, nil); !strings.Contains(page, `id="tok-revoked"`) || !strings.Contains(page, "<code>console-read</code>") {
		t.Errorf("the tokens page after a revoke (%s) does not confirm it:\n%s", loc, page)
	}
	if _, page = httpcall.Form(t, admin, http.MethodGet, site.base+"/tokens?revoked=console-admin", nil); strings.Contains(page, `id="tok-revoked"`) {
		t.Errorf("the tokens page confirms a revoke of an active token from its address alone:\n%s", page)
	}
}

// An attempt's row says why it ended when it did not succeed: its message,
// or else its error code (a cancel, a server or worker stop, a timeout);
// a Chinese page says it in Chinese, beside the code.
func TestConsoleShowsWhyAnAttemptEnded(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	waitFor(t, "the run to start", 10*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id, nil)
		return strings.Contains(page, `data-state="running"`)
	})
	site.cancel(t, c, csrf, id)
	waitFor(t, "the cancelled attempt to show its code", 15*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang=en", nil)
		return strings.Contains(page, ` — <code class="error-code">cancelled</code>`)
	})
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"?lang=zh", nil); !strings.Contains(page,
		`<span class="error-why">运行被要求取消，命令已被停止</span> <code class="error-code">cancelled</code>`) {
		t.Fatalf("the Chinese page does not say in Chinese why the attempt ended:\n%s", page)
	}
}

// A trigger's page shows the newest 50 entries of its ledger and, when it
// has older ones, says so in the page's language and names the command
// that lists the whole ledger, so that nobody takes the newest entries for
// every occurrence passed over. The command shows as code, not between
// backquotes.
func TestConsoleTriggerPageSaysWhenOlderLedgerEntriesAreNotShown(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	seed := func(from, to int) {
		db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`WITH RECURSIVE i(n) AS (SELECT ?2 UNION ALL SELECT n + 1 FROM i WHERE n < ?3)
			INSERT INTO occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
				occurrence_count, at_least, recorded_at_ms)
			SELECT ?1, n, 1, 'misfire', n * 1000, n * 1000, 1, 0, n * 1000 FROM i`, site.triggerID, from, to); err != nil {
			t.Fatal(err)
		}
	}
	page := func(lang string) string {
		_, p := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang="+lang, nil)
		return p
	}
	seed(1, 50)
	if p := page("en"); strings.Count(p, "× passed over") != 50 || strings.Contains(p, `id="ledger-more"`) {
		t.Fatalf("a ledger of 50 entries: want all 50 shown and no word of older ones:\n%s", p)
	}
	seed(51, 51)
	whole := keptFlags(fmt.Sprintf("<code>ql triggers show shop/nightly --ledger %d --data-dir %s</code>", view.MaxLedgerShown, site.dir))
	if p := page("en"); strings.Count(p, "× passed over") != 50 || !strings.Contains(p, `id="ledger-more"`) ||
		!strings.Contains(p, "Only its newest 50 ledger entries of occurrences passed over are shown; older ones exist. "+whole) {
		t.Errorf("a ledger of 51 entries in English: want the newest 50 and a word of the older ones naming %s:\n%s", whole, p)
	}
	if p := page("zh"); !strings.Contains(p, "这里只显示已跳过记录中最新的 50 条，还有更早的记录。用 "+whole) {
		t.Errorf("a ledger of 51 entries in Chinese: want a word of the older ones naming %s:\n%s", whole, p)
	}
}

// A single-node server runs every command itself: its console offers no
// workers page, and the workers address (a bookmark, a link from a
// cluster's console) answers in either language with a page saying where
// the commands run and how many at once, and where remote workers belong,
// not with an error as if something were missing.
func TestTheWorkersAddressOfASingleNodeServerSaysItRunsEveryCommandItself(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil); strings.Contains(page, `href="/workers"`) {
		t.Fatalf("the single-node overview offers a workers page:\n%s", page)
	}
	n := site.srv.cfg.Concurrency
	atOnce := map[string]string{"en": fmt.Sprintf("It runs up to %d commands at once", n), "zh": fmt.Sprintf("它最多同时执行 %d 条命令", n)}
	if n == 1 {
		atOnce = map[string]string{"en": "It runs 1 command at a time", "zh": "它一次执行 1 条命令"}
	}
	for l, want := range map[string][]string{
		"en": {"<h1>Where commands run</h1>", "This server runs every command itself, on this machine", atOnce["en"], keptFlags("ql serve --concurrency N"),
			"Remote workers, which run the commands on other machines, belong to the cluster profile"},
		"zh": {"<h1>命令在哪里执行</h1>", "本服务器在本机自行执行每一条命令", atOnce["zh"], keptFlags("ql serve --concurrency N"),
			"远程执行节点（在其他机器上执行命令）属于集群配置"},
	} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/workers?lang="+l, nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(page, `id="error-message"`) || strings.Contains(page, "%!") {
			t.Errorf("the workers address in %s: %d, want 200, no error and every count in its sentence:\n%s", l, resp.StatusCode, page)
		}
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("the workers address in %s does not say %q:\n%s", l, w, page)
			}
		}
	}
}

// The project pickers (the runs and notifications filters, the
// definitions page) offer every project, one without a trigger too, and
// a name no project has is refused on the page in its language.
func TestTheConsolesProjectPickersOfferAProjectWithoutTriggers(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	file := "project: quiet\ntasks:\n  - name: job\n    script: echo hi\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {file}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("apply a project without triggers: %d\n%s", resp.StatusCode, page)
	}
	for path, want := range map[string]string{"/definitions": `<option value="quiet">`, "/runs": `<option value="quiet">quiet</option>`, "/notifications": `<option value="quiet">quiet</option>`} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil); !strings.Contains(page, want) {
			t.Errorf("%s does not offer the project without triggers (%s):\n%s", path, want, page)
		}
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?project=quiet", nil); resp.StatusCode != http.StatusOK || !strings.Contains(page, `selected>quiet</option>`) {
		t.Errorf("runs of project quiet: %d, want it chosen:\n%s", resp.StatusCode, page)
	}
	for lang, want := range map[string]string{"en": `no project is named &#34;nowhere&#34;`, "zh": "没有名为“nowhere”的项目"} {
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?project=nowhere&lang="+lang, nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) {
			t.Errorf("runs of a project no one has, in %s: %d, want 400 saying %s:\n%s", lang, resp.StatusCode, want, page)
		}
	}
}
