package server

import (
	"database/sql"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// addShopTrigger publishes the trigger name of the site's task report
// beside the running server, as an apply would, and returns its id.
func (s *consoleSite) addShopTrigger(t *testing.T, name string, enabled bool, overlap trigger.OverlapPolicy) string {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(s.dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tk, err := b.Store.TaskByName(t.Context(), s.projectID, "report")
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := b.Catalog.PublishTrigger(t.Context(), s.projectID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: name, Enabled: enabled,
		Cron: trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce, Overlap: overlap}})
	if err != nil {
		t.Fatal(err)
	}
	return tg.TriggerID
}

var (
	batchFormHTML = regexp.MustCompile(`(?s)<form method="post" action="/triggers/batch" id="triggers-batch" class="batch">(.*?)</form>`)
	hiddenInput   = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	batchRowHTML  = regexp.MustCompile(`(?s)<tr class="batch-(done|refused)"><td[^>]*>(.*?)</td>\s*<td[^>]*>(.*?)</td></tr>`)
	anyTag        = regexp.MustCompile(`<[^>]+>`)
)

// batchForm is the hidden fields of the batch form of the triggers list
// at path as c is shown it: its CSRF value, its request id and the list's
// filters.
func (s *consoleSite) batchForm(t *testing.T, c *http.Client, path string) url.Values {
	t.Helper()
	_, page := httpcall.Form(t, c, http.MethodGet, s.base+path, nil)
	m := batchFormHTML.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("%s offers no batch form:\n%s", path, page)
	}
	v := url.Values{}
	for _, in := range hiddenInput.FindAllStringSubmatch(m[1], -1) {
		v.Set(in[1], html.UnescapeString(in[2]))
	}
	return v
}

// batchOutcomes are a batch answer's lines as text: "done|refused:
// trigger: what was said".
func batchOutcomes(page string) []string {
	text := func(s string) string {
		return strings.Join(strings.Fields(html.UnescapeString(anyTag.ReplaceAllString(s, ""))), " ")
	}
	var out []string
	for _, m := range batchRowHTML.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1]+": "+text(m[2])+": "+text(m[3]))
	}
	return out
}

// sendBatch posts the batch form with action on the triggers selected
// and returns the answer's lines, failing unless it answered 200.
func (s *consoleSite) sendBatch(t *testing.T, c *http.Client, form url.Values, action string, selected ...string) ([]string, string) {
	t.Helper()
	form.Set("do", action)
	form["id"] = selected
	resp, page := httpcall.Form(t, c, http.MethodPost, s.base+"/triggers/batch", form)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("batch %s: %d\n%s", action, resp.StatusCode, page)
	}
	return batchOutcomes(page), page
}

// latestAudit is trigger id's newest audit record: "action actor note".
func (s *consoleSite) latestAudit(t *testing.T, db *sql.DB, id string) string {
	t.Helper()
	var action, actor, note string
	if err := db.QueryRow(`SELECT action, actor, coalesce(note, '') FROM trigger_schedule_audit WHERE trigger_id = ? ORDER BY id DESC LIMIT 1`, id).Scan(&action, &actor, &note); err != nil {
		t.Fatal(err)
	}
	return action + " " + actor + " " + note
}

// On a real standalone server, Run now on several triggers of the list
// makes a Run of each it may, through the single Run now's path: one whose
// earlier Run is unfinished under overlap skip (named), a disabled one and one
// that does not exist are each refused in the refusal's own words, and
// none stops the others. The same form sent again makes no second Run.
// A batch pause and a batch enable are audited with the actor.
func TestTheTriggersListActsOnSelectedTriggersEachWithItsOwnOutcomeAndOneRunPerForm(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	guard := site.addShopTrigger(t, "guard", true, trigger.OverlapSkip)
	off := site.addShopTrigger(t, "off", false, trigger.OverlapAllow)
	missing := ids.New()
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	// guard's first Run runs the slow script: another beside it is skipped.
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+guard+"/run", url.Values{"csrf": {csrf}, "request": {"first"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("guard's first run now: %d\n%s", resp.StatusCode, page)
	}
	guardRun := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")

	form := site.batchForm(t, c, "/triggers?project=shop")
	if form.Get("project") != "shop" || form.Get("request") == "" {
		t.Fatalf("the batch form carries %v; want the list's project and a request id", form)
	}
	lines, page := site.sendBatch(t, c, form, "run", site.triggerID, guard, off, missing)
	run := regexp.MustCompile(`class="batch-runlink[^"]*" href="/runs/([^"]+)"`).FindStringSubmatch(page)
	if run == nil {
		t.Fatalf("the answer links no Run:\n%s", page)
	}
	enable := "ql triggers enable shop/off --data-dir " + shellquote.Quote(site.dir)
	refused := []string{
		"refused: shop/guard: refused The trigger was not run: its earlier run " + guardRun + " is unfinished and its overlap policy refuses another. Wait for it to finish, or cancel it.",
		// The commands the refusals name show as code, the words of
		// the page without their backquotes.
		"refused: shop/off: refused " + strings.ReplaceAll(schedule.DisabledRefusal("off", off, enable).Error(), "`", ""),
		"refused: " + missing + ": refused " + strings.ReplaceAll(schedule.TriggerMissing(missing).Error(), "`", ""),
	}
	want := append([]string{"done: shop/nightly: done a Run was created: " + run[1]}, refused...)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("batch run now:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(page, `id="batch-back" href="/triggers?project=shop"`) || !strings.Contains(page, "Selected: 4. Done: 1. Refused: 3.") {
		t.Errorf("the answer lacks its summary or the way back to the list as it was:\n%s", page)
	}

	lines, _ = site.sendBatch(t, c, form, "run", site.triggerID, guard, off, missing)
	want = append([]string{"done: shop/nightly: done this form made its Run before (it was sent again), no second one: " + run[1]}, refused...)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the same form sent again:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runs int
	if err := db.QueryRow(`SELECT count(*) FROM runs WHERE trigger_id = ?`, site.triggerID).Scan(&runs); err != nil || runs != 1 {
		t.Fatalf("nightly has %d Runs (%v) after the form was sent twice, want 1", runs, err)
	}

	form.Set("note", "  freeze for the release ")
	lines, _ = site.sendBatch(t, c, form, "pause", site.triggerID, guard)
	if strings.Join(lines, "\n") != "done: shop/nightly: done paused.\ndone: shop/guard: done paused." {
		t.Fatalf("batch pause: %q", lines)
	}
	for _, id := range []string{site.triggerID, guard} {
		if got := site.latestAudit(t, db, id); got != "pause console:token:console-operate@127.0.0.1 freeze for the release" {
			t.Errorf("the newest audit record of %s: %q; want the pause by the operate session with the note", id, got)
		}
	}

	admin := consoleClient(t)
	site.signIn(t, admin, site.tokens[apitoken.Admin])
	if lines, _ = site.sendBatch(t, admin, site.batchForm(t, admin, "/triggers"), "enable", off, site.triggerID); strings.Join(lines, "\n") != "done: shop/off: done enabled (revision 2).\ndone: shop/nightly: done it was enabled already; nothing changed." {
		t.Fatalf("batch enable: %q", lines)
	}
	if _, page := httpcall.Form(t, admin, http.MethodGet, site.base+"/triggers/"+off, nil); !strings.Contains(page, "<bdi>console:token:console-admin@127.0.0.1</bdi>") {
		t.Errorf("off's audit trail does not name the admin session that enabled it:\n%s", page)
	}
}
