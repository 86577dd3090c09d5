package server

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// yearly is the console site's schedule: 03:00 on 1 January in Shanghai.
var yearly = trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}

// backfillSite is a console site whose trigger runs a command that ends
// at once, so backfilled Runs finish by themselves.
func backfillSite(t *testing.T, cron trigger.Cron) *consoleSite {
	t.Helper()
	return startConsoleSiteRunning(t, cron, "echo backfilled")
}

// newYears are the yearly occurrences from 1 January of year on that
// have passed.
func newYears(year int) []time.Time {
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	var out []time.Time
	for at := time.Date(year, 1, 1, 3, 0, 0, 0, shanghai); at.Before(time.Now()); at = at.AddDate(1, 0, 0) {
		out = append(out, at)
	}
	return out
}

var (
	backfillCount = regexp.MustCompile(`id="backfill-count">(\d+)<`)
	backfillRun   = regexp.MustCompile(`<li><a href="/runs/([^"]+)">`)
)

// backfillPage posts the backfill form's window to step ("backfill/preview"
// or "backfill") and returns the answer, its page and the occurrences it
// counts (-1 when it shows no count).
func backfillPage(t *testing.T, site *consoleSite, c *http.Client, csrf, step, from, to string) (*http.Response, string, int) {
	t.Helper()
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/"+step,
		url.Values{"csrf": {csrf}, "from": {from}, "to": {to}})
	n := -1
	if m := backfillCount.FindStringSubmatch(page); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	return resp, page, n
}

// runIDsOf are the ids of the trigger's Runs, sorted.
func runIDsOf(t *testing.T, site *consoleSite) []string {
	t.Helper()
	list, _, err := site.srv.store.RunList(t.Context(), run.ListParams{TriggerID: site.triggerID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// The trigger's page offers an operate session the backfill form, filled
// with the last day in the viewer's zone; its preview counts the window's
// occurrences with the first and last and creates nothing; confirming it
// creates one Run per occurrence, linked from the result, and confirming
// it again creates none.
func TestConsoleBackfillPreviewsTheWindowThenCreatesItsRunsOnce(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	before := time.Now().UTC()
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=en", nil)
	day := func(at time.Time) string { return `id="backfill-to" name="to" value="` + at.Format("2006-01-02T") }
	if !strings.Contains(page, day(before)) && !strings.Contains(page, day(time.Now().UTC())) {
		t.Fatalf("the backfill form's window does not end today:\n%s", page)
	}
	for _, want := range []string{`id="backfill-form"`, `action="/triggers/` + site.triggerID + `/backfill/preview?tz=UTC"`,
		"Times in UTC.", "At most 1000 occurrences"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the trigger page lacks %s:\n%s", want, page)
		}
	}

	want := newYears(2022)
	to := time.Now().UTC().Format("2006-01-02T15:04")
	resp, page, n := backfillPage(t, site, c, csrf, "backfill/preview", "2021-06-01T00:00", to)
	if resp.StatusCode != http.StatusOK || n != len(want) || !strings.Contains(page, `id="backfill-confirm"`) ||
		!strings.Contains(page, `id="backfill-first"><span class="time">`+want[0].UTC().Format(time.DateTime)+" UTC<") || !strings.Contains(page, `id="backfill-last"><span class="time">`+want[len(want)-1].UTC().Format(time.DateTime)+" UTC<") {
		t.Fatalf("preview: %d counting %d, want %d occurrences from 2022-01-01 with a confirm button:\n%s", resp.StatusCode, n, len(want), page)
	}
	if ids := runIDsOf(t, site); len(ids) != 0 {
		t.Fatalf("the preview created the runs %v", ids)
	}
	if !strings.Contains(page, `href="/triggers/`+site.triggerID+`?lang=zh" lang="zh-CN" id="lang-zh"`) {
		t.Fatalf("the preview's language switch does not lead back to the trigger's page:\n%s", page)
	}

	resp, page, n = backfillPage(t, site, c, csrf, "backfill", "2021-06-01T00:00", to)
	var linked []string
	for _, m := range backfillRun.FindAllStringSubmatch(page, -1) {
		linked = append(linked, m[1])
	}
	slices.Sort(linked)
	if resp.StatusCode != http.StatusOK || n != len(want) || !strings.Contains(page, `id="backfill-done"`) || !slices.Equal(linked, runIDsOf(t, site)) ||
		len(linked) != len(want) || !strings.Contains(page, `href="/runs?trigger=`+site.triggerID+`"`) {
		t.Fatalf("backfill: %d, linking %v of the runs %v; want %d runs linked:\n%s", resp.StatusCode, linked, runIDsOf(t, site), len(want), page)
	}

	_, page, _ = backfillPage(t, site, c, csrf, "backfill", "2021-06-01T00:00", to)
	if !strings.Contains(page, `id="backfill-new">0<`) || !strings.Contains(page, `id="backfill-existing">`+strconv.Itoa(len(want))+`<`) || len(runIDsOf(t, site)) != len(want) {
		t.Fatalf("a second backfill of the window created runs:\n%s", page)
	}
	if _, page, _ = backfillPage(t, site, c, csrf, "backfill/preview", "2021-06-01T00:00", to); !strings.Contains(page, `id="backfill-nothing"`) {
		t.Fatalf("the preview of a window backfilled already offers to create runs:\n%s", page)
	}
}

// The window is read in the zone the page showed times in: 03:00 on
// 1 January 2022 is the occurrence in Shanghai, and no occurrence in UTC.
func TestConsoleBackfillReadsTheWindowInTheViewersZone(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	for zone, want := range map[string]int{"Asia/Shanghai": 1, "UTC": 0} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill/preview?tz="+zone,
			url.Values{"csrf": {csrf}, "from": {"2022-01-01T03:00"}, "to": {"2022-01-01T03:00"}})
		if m := backfillCount.FindStringSubmatch(page); resp.StatusCode != http.StatusOK || m == nil || m[1] != strconv.Itoa(want) || !strings.Contains(page, "Times in "+zone) {
			t.Errorf("a window of one instant in %s: %d, want %d occurrences:\n%s", zone, resp.StatusCode, want, page)
		}
	}
}

// The backfill form's help names the zone and then says what a backfill
// does, one sentence after the other as each language writes them: with
// a space after an English full stop, none after a Chinese one.
func TestTheBackfillHelpJoinsItsSentencesAsItsLanguageWrites(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Operate])
	for lang, want := range map[string]string{"en": "Times in UTC. A Run is created", "zh": "时间按 UTC 时区。为两个时刻之间"} {
		if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=UTC&lang="+lang, nil); !strings.Contains(page, want) {
			t.Errorf("the %s backfill help does not read %q:\n%s", lang, want, page)
		}
	}
}

// A read session's trigger page has no backfill form, and a forged
// preview or backfill from it is refused for its scope, creating nothing;
// an operate session's post without its CSRF token is refused too.
func TestConsoleBackfillIsRefusedToAReadSessionAndWithoutCSRF(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	reader := consoleClient(t)
	readCSRF := site.signIn(t, reader, site.tokens[apitoken.Read])
	if _, page := httpcall.Form(t, reader, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil); strings.Contains(page, `id="backfill`) {
		t.Fatalf("a read session's trigger page offers backfill:\n%s", page)
	}
	to := time.Now().UTC().Format("2006-01-02T15:04")
	for _, step := range []string{"backfill/preview", "backfill"} {
		if resp, page, _ := backfillPage(t, site, reader, readCSRF, step, "2021-06-01T00:00", to); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "scope read") {
			t.Errorf("%s from a read session: %d, want 403 naming the scope:\n%s", step, resp.StatusCode, page)
		}
	}
	op := consoleClient(t)
	site.signIn(t, op, site.tokens[apitoken.Operate])
	if resp, page, _ := backfillPage(t, site, op, "", "backfill", "2021-06-01T00:00", to); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "CSRF") {
		t.Errorf("a backfill without the CSRF token: %d, want 403:\n%s", resp.StatusCode, page)
	}
	if ids := runIDsOf(t, site); len(ids) != 0 {
		t.Fatalf("refused backfills created the runs %v", ids)
	}
}

// The overview's admission lag leaves out the Runs a person asked for, as
// qinglong_scheduler_admission_lag_seconds does: backfilled Runs of past
// years, a run now and a re-run are counted among the day's Runs, and none
// of them is a lag of the schedule's.
func TestTheOverviewsAdmissionLagLeavesOutBackfilledAndRequestedRuns(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, yearly)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	to := time.Now().UTC().Format("2006-01-02T15:04")
	if resp, page, n := backfillPage(t, site, c, csrf, "backfill", "2021-06-01T00:00", to); resp.StatusCode != http.StatusOK || n != len(newYears(2022)) {
		t.Fatalf("backfill: %d counting %d, want %d occurrences:\n%s", resp.StatusCode, n, len(newYears(2022)), page)
	}
	site.runNow(t, c, csrf)
	backfilled := runIDsOf(t, site)[0]
	waitFor(t, "a backfilled Run to finish", 10*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+backfilled, nil)
		return strings.Contains(page, `id="rerun"`)
	})
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+backfilled+"/rerun", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("re-run of the backfilled Run %s: %d, want 303 to the new Run", backfilled, resp.StatusCode)
	}
	all := len(runIDsOf(t, site))
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/?lang=en", nil)
	if !strings.Contains(page, `<dd id="lag">—</dd>`) || !strings.Contains(page, fmt.Sprintf(`<p id="counted">%d runs counted</p>`, all)) {
		t.Fatalf("the overview after %d requested Runs and none of the clock's: want them counted and no admission lag:\n%s", all, page)
	}
}

// A preview of a window that ends before the trigger's startAt says so,
// naming startAt in the form's zone and what to do, in the page's
// language, rather than only counting no occurrence; so does one reaching
// across startAt whose one occurrence lies before it.
func TestConsoleBackfillPreviewSaysWhyAWindowBeforeTheTriggersStartTakesNothing(t *testing.T) {
	t.Parallel()
	c := yearly
	c.StartAtMs = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	site := backfillSite(t, c)
	cl := consoleClient(t)
	csrf := site.signIn(t, cl, site.tokens[apitoken.Operate])
	for lang, want := range map[string]string{
		"en": `The window holds no occurrence from the trigger&#39;s startAt, <span class="time">2024-01-01 00:00:00 UTC</span>, on, and the trigger has none before it. Move the window to <span class="time">2024-01-01 00:00:00 UTC</span> or later.`,
		"zh": `窗口内没有触发器起始时间（startAt）<span class="time">2024-01-01 00:00:00 UTC</span> 及之后的发生时刻`,
	} {
		// The second window holds 2023-12-31 19:00 UTC, the cron's 03:00 in
		// Shanghai on 1 January, before startAt, and nothing after it.
		for _, w := range [][2]string{{"2021-06-01T00:00", "2023-06-01T00:00"}, {"2023-06-01T00:00", "2024-06-01T00:00"}} {
			resp, page := httpcall.Form(t, cl, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill/preview?tz=UTC&lang="+lang,
				url.Values{"csrf": {csrf}, "from": {w[0]}, "to": {w[1]}})
			if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="backfill-count">0<`) || !strings.Contains(page, `data-reason="before_start">`+want) {
				t.Errorf("%s preview of the window %s to %s: %d, want no occurrence and %q:\n%s", lang, w[0], w[1], resp.StatusCode, want, page)
			}
		}
	}
}

var (
	backfillFrom = regexp.MustCompile(`id="backfill-from" name="from" value="([^"]+)"`)
	backfillTo   = regexp.MustCompile(`id="backfill-to" name="to" value="([^"]+)"`)
)

// The window the form offers for a trigger firing every minute — 1,441
// occurrences in the last day, over the console's cap — is the last 999
// minutes, whose preview counts its 1,000 occurrences rather than being
// refused for its size.
//
// The count is the preview's own transaction (the store's dry run of the
// console's request: its cap, refusing a window over it) run under the
// test's context, not under the page's time limit: a dry run writes a Run
// per occurrence before rolling back, and a thousand, under the race
// detector on a loaded machine, can outlast the 10 s a page is given,
// which says how fast the machine is, not where the cap is. A page's
// preview and its limit have tests of their own
// (TestConsoleBackfillPreviewsTheWindowThenCreatesItsRunsOnce,
// TestAConsolePageOutOfTimeSaysSoInsteadOfBeingCutOff).
func TestTheDefaultBackfillWindowOfAMinutelyTriggerPreviewsWithinTheCap(t *testing.T) {
	t.Parallel()
	site := backfillSite(t, trigger.Cron{Expression: "0 * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce})
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Operate])
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=UTC", nil)
	from, to := backfillFrom.FindStringSubmatch(page), backfillTo.FindStringSubmatch(page)
	if from == nil || to == nil {
		t.Fatalf("the trigger page offers no backfill window:\n%s", page)
	}
	start, err1 := time.Parse("2006-01-02T15:04", from[1])
	end, err2 := time.Parse("2006-01-02T15:04", to[1])
	if err1 != nil || err2 != nil || end.Sub(start) != 999*time.Minute {
		t.Fatalf("the form offers %s to %s, want the last 999 minutes", from[1], to[1])
	}
	if !strings.Contains(page, fmt.Sprintf("At most %d occurrences", schedule.DefaultBackfillMax)) {
		t.Fatalf("the form does not say its cap of %d occurrences:\n%s", schedule.DefaultBackfillMax, page)
	}
	// Its last occurrence is the schedule's still while no round has
	// decided the trigger yet, should a minute have begun since its
	// publication.
	began := time.Now()
	res, err := site.srv.store.TriggerBackfill(t.Context(), schedule.BackfillRequest{TriggerID: site.triggerID, FromMs: start.UnixMilli(), ToMs: end.UnixMilli(),
		Max: schedule.DefaultBackfillMax, RefuseOverMax: true, DryRun: true, Actor: "test"})
	t.Logf("the dry run of the offered window took %s", time.Since(began).Round(time.Millisecond))
	if err != nil || res.Occurrences != 1000 && res.Occurrences != 999 {
		t.Fatalf("the preview of the offered window: %+v, %v; want its 1000 occurrences", res, err)
	}
}

// The overview's admission lag says how many Runs it counted in the page's
// language and punctuation: (N runs counted), （N 条运行）.
func TestTheOverviewsAdmissionLagCountsItsRunsInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip}, "true")
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	lag := regexp.MustCompile(`<dd id="lag">p50 [^<]*</dd>`)
	for lang, want := range map[string]*regexp.Regexp{"en": regexp.MustCompile(`\S \(\d+ runs? counted\)</dd>$`), "zh": regexp.MustCompile(`\S（\d+ 条运行）</dd>$`)} {
		var got string
		waitFor(t, "the overview's admission lag in "+lang, 10*time.Second, func() bool {
			_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/?lang="+lang, nil)
			got = lag.FindString(page)
			return got != ""
		})
		if !want.MatchString(got) {
			t.Errorf("the %s admission lag reads %q, want it to match %s", lang, got, want)
		}
	}
}
