package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// addTrigger publishes the enabled trigger name of the site's task, firing
// at 03:00 every day in zone, and returns its id.
func (b *batchSite) addTrigger(t *testing.T, name, zone string) string {
	t.Helper()
	ctx := t.Context()
	d, err := b.st.TriggerDetail(ctx, b.triggers["a"], 1)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := b.st.TaskByName(ctx, d.ProjectID, d.TaskName)
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: b.st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	tg, _, err := svc.PublishTrigger(ctx, d.ProjectID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: name, Enabled: true,
		Cron: trigger.Cron{Expression: "0 0 3 * * *", Timezone: zone, MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	b.triggers[name] = tg.TriggerID
	return tg.TriggerID
}

// shownTime is a time as a page shows it, its zone's offset captured.
var shownTime = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3})? ([A-Z]*(?:[+-]\d{2}(?::\d{2})?)?)`)

// scheduledOf is the Scheduled time a page's row of Run id shows: the
// trigger's timeline puts it before the Run's link, the runs list after.
func scheduledOf(page, id string) string {
	for _, re := range []string{
		`<td data-label="Scheduled"><span class="time">([^<]*)</span></td><td data-label="Run"><a href="/runs/` + id + `"`,
		`(?s)<a href="/runs/` + id + `" title="` + id + `" class="run-id">.*?<td data-label="Scheduled"><span class="time">([^<]*)</span></td>`,
	} {
		if m := regexp.MustCompile(re).FindStringSubmatch(page); m != nil {
			return html.UnescapeString(m[1])
		}
	}
	return ""
}

// Every time on a trigger's pages, its own and the triggers list, reads in
// one zone, the viewer's, which the page names beside the zone its
// schedule is read in: a Run on the trigger's timeline reads as the runs
// list shows it, its next fires and last run in the same zone.
func TestATriggersPagesShowEveryTimeInOneZoneTheyName(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	id := b.addTrigger(t, "east", "Asia/Shanghai")
	w := b.do(apitoken.Operate, "/triggers/"+id+"/run", url.Values{"request": {ids.New()}})
	runID, ok := strings.CutPrefix(w.Header().Get("Location"), "/runs/")
	if w.Code != http.StatusSeeOther || !ok {
		t.Fatalf("run now: %d to %q, want 303 to the Run's page\n%s", w.Code, w.Header().Get("Location"), w.Body)
	}
	runs := b.do(apitoken.Read, "/runs?tz=Asia/Tokyo&trigger="+id, nil).Body.String()
	for _, tc := range []struct {
		path, zone string
		names      string
	}{
		{"/triggers/" + id + "?tz=Asia/Tokyo", "UTC+09:00", `id="times-zone">Times in Asia/Tokyo (the schedule is read in Asia/Shanghai)</p>`},
		{"/triggers/" + id + "?tz=Asia/Tokyo&lang=zh", "UTC+09:00", `id="times-zone">时区 Asia/Tokyo（计划按 Asia/Shanghai 时区解读）</p>`},
		{"/triggers/" + id + "?tz=Asia/Shanghai", "UTC+08:00", `id="times-zone">Times in Asia/Shanghai</p>`},
		{"/triggers?tz=Asia/Tokyo", "UTC+09:00", `id="times-zone">Times in Asia/Tokyo</p>`},
		{"/triggers?tz=Asia/Tokyo&lang=zh", "UTC+09:00", `id="times-zone">时区 Asia/Tokyo</p>`},
	} {
		page := b.do(apitoken.Read, tc.path, nil).Body.String()
		if !strings.Contains(page, tc.names) {
			t.Errorf("%s does not name its zone as %s:\n%s", tc.path, tc.names, page)
		}
		times := shownTime.FindAllStringSubmatch(html.UnescapeString(page), -1)
		if len(times) < 5 {
			t.Errorf("%s shows %d times, want at least its five next fires:\n%s", tc.path, len(times), page)
		}
		for _, m := range times {
			if m[1] != tc.zone {
				t.Errorf("%s shows %q, not in the zone it names (%s):\n%s", tc.path, m[0], tc.zone, page)
			}
		}
	}
	page := b.do(apitoken.Read, "/triggers/"+id+"?tz=Asia/Tokyo", nil).Body.String()
	if got, want := scheduledOf(page, runID), scheduledOf(runs, runID); got == "" || got != want {
		t.Errorf("the trigger's timeline shows Run %s scheduled for %q, the runs list for %q; want the same time", runID, got, want)
	}
}

// Every fire time a page shows, with or without a jitter, sits in a span
// that does not wrap, so a phone breaks a line between times and words,
// never inside a date or between a time and its zone.
func TestEveryFireTimeSitsInASpanThatDoesNotWrap(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC).UnixMilli()
	for _, l := range []string{"en", "zh"} {
		if got, want := string(fireText(l, at, at, "Asia/Shanghai")), `<span class="time">2026-12-01 11:00:00 UTC&#43;08:00</span>`; got != want {
			t.Errorf("a fire without jitter in %s: %q, want %q", l, got, want)
		}
	}
	// The list has two enabled triggers, the page one.
	b := newBatchSite(t, nil)
	for path, want := range map[string]int{"/triggers": 10, "/triggers/" + b.triggers["a"]: 5} {
		page := b.do(apitoken.Read, path, nil).Body.String()
		if n := strings.Count(page, `<li><span class="time">`); n != want {
			t.Errorf("%s lists %d next fires in a span that does not wrap, want %d:\n%s", path, n, want, page)
		}
	}
}

// A time names its zone's offset from UTC, never the zone's abbreviation:
// CST is China's, US Central and Cuba's at once, and the hour New York's
// clock turns back reads twice with one name but two offsets.
func TestATimeNamesItsOffsetNotAnAmbiguousAbbreviation(t *testing.T) {
	t.Parallel()
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	fold := time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC).UnixMilli()
	for _, c := range []struct {
		ms         int64
		zone, want string
	}{
		{jan, "Asia/Shanghai", "2026-01-01 08:00:00 UTC+08:00"},
		{jan, "America/Chicago", "2025-12-31 18:00:00 UTC-06:00"},
		{jan, "America/Havana", "2025-12-31 19:00:00 UTC-05:00"},
		{jan, "Asia/Kolkata", "2026-01-01 05:30:00 UTC+05:30"},
		{jan, "Europe/London", "2026-01-01 00:00:00 UTC"},
		{fold, "America/New_York", "2026-11-01 01:30:00 UTC-04:00"},
		{fold + time.Hour.Milliseconds(), "America/New_York", "2026-11-01 01:30:00 UTC-05:00"},
	} {
		if got := when(c.ms, c.zone); got != c.want {
			t.Errorf("when(%d, %q) = %q, want %q", c.ms, c.zone, got, c.want)
		}
	}
	if got, want := whenMs(jan+250, "Asia/Shanghai"), "2026-01-01 08:00:00.250 UTC+08:00"; got != want {
		t.Errorf("whenMs in Shanghai = %q, want %q", got, want)
	}
}
