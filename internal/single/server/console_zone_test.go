package server

import (
	"database/sql"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The triggers page and a trigger's page list its next five fires in the
// viewer's zone (the tz cookie the console's script sets, or ?tz=), as
// every time on them, and name it; the trigger's page names the zone its
// schedule is read in where that differs. The overview says the viewer's
// time beside the trigger's only where it reads differently; the runs page
// keeps the Runs of a time window given in the viewer's zone.
func TestConsoleShowsFiresInTheViewersZoneAndFiltersRunsByTime(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	u, _ := url.Parse(site.base)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "ql_tz", Value: "America/New_York", Path: "/"}})
	var page string
	waitFor(t, "the triggers page to list the next fires", 5*time.Second, func() bool {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers", nil)
		return strings.Count(page, `<li><span class="time">`) == 5
	})
	// 03:00 on 1 January in Shanghai is 14:00 on 31 December in New York.
	if strings.Count(page, "-12-31 14:00:00 UTC-05:00</span></li>") != 5 || strings.Contains(page, "UTC&#43;08:00") || !strings.Contains(page, `id="times-zone">Times in America/New_York</p>`) {
		t.Fatalf("the triggers page does not show five fires in New York time only, naming it:\n%s", page)
	}
	// The overview's next fires say the viewer's time only where it
	// reads differently: a phone shows each card's time once otherwise,
	// and a desktop no column at all when no trigger's zone differs.
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/", nil); !regexp.MustCompile(`<td data-label="Your time" class="next-yours"><span class="time">\d{4}-12-31 14:00:00 UTC-05:00</span></td>`).MatchString(page) {
		t.Fatalf("the overview does not show the next fire in New York time beside the trigger's:\n%s", page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/?tz=Asia/Shanghai", nil); strings.Contains(page, "Your time") || !strings.Contains(page, `<td data-label="Next fire">`) {
		t.Fatalf("the overview seen from the trigger's own zone shows a column of \"your time\", which would be empty:\n%s", page)
	}
	berlin := regexp.MustCompile(`<li><span class="time">\d{4}-12-31 20:00:00 UTC&#43;01:00</span></li>`)
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=Europe/Berlin", nil); len(berlin.FindAllString(page, -1)) != 5 || strings.Contains(page, "UTC&#43;08:00") ||
		!strings.Contains(page, `id="times-zone">Times in Europe/Berlin (the schedule is read in Asia/Shanghai)</p>`) {
		t.Fatalf("the trigger page with ?tz=Europe/Berlin does not show five fires in Berlin time only, naming it and the schedule's zone:\n%s", page)
	}
	// Chinese puts its remark between full-width parentheses.
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=Europe/Berlin&lang=zh", nil); len(berlin.FindAllString(page, -1)) != 5 ||
		!strings.Contains(page, `id="times-zone">时区 Europe/Berlin（计划按 Asia/Shanghai 时区解读）</p>`) {
		t.Fatalf("the Chinese trigger page does not show five fires in Berlin time, naming it and the schedule's zone:\n%s", page)
	}
	// Seen from the trigger's own zone, the page names it once: the
	// schedule is read in the zone its times are in.
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=Asia/Shanghai&lang=en", nil); strings.Count(page, `<li><span class="time">`) != 5 ||
		!strings.Contains(page, `id="times-zone">Times in Asia/Shanghai</p>`) {
		t.Fatalf("the trigger page seen from the trigger's own zone does not name it alone:\n%s", page)
	}
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run", url.Values{"csrf": {csrf}})
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	ny, _ := time.LoadLocation("America/New_York")
	local := func(d time.Duration) string { return time.Now().Add(d).In(ny).Format("2006-01-02T15:04") }
	for _, tc := range []struct {
		from, to string
		shown    bool
	}{{local(-time.Hour), local(time.Hour), true}, {local(time.Hour), "", false}, {"", local(-time.Hour), false}} {
		q := url.Values{"from": {tc.from}, "to": {tc.to}}
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?"+q.Encode(), nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(page, id) != tc.shown || !strings.Contains(page, "America/New_York") {
			t.Errorf("runs from %q to %q in New York time: %d, run %s shown %t, want %t", tc.from, tc.to, resp.StatusCode, id, !tc.shown, tc.shown)
		}
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs?from=yesterday", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("runs from \"yesterday\": %d, want 400", resp.StatusCode)
	}
	httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+id+"/cancel", url.Values{"csrf": {csrf}})
}

// A zone this server does not know, in the address or the tz cookie, is
// named on the page in its language, and the times stay in the zone they
// were shown in: the cookie's, or the one before the cookie's. "Local",
// the server's own zone, is never implied: the page says which names it
// takes.
func TestAZoneTheServerDoesNotKnowIsNamedAndThePreviousZoneKept(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	for _, tc := range []struct {
		name, query, cookie, prev, lang, zone string
		says                                  []string
	}{
		{"a mistyped ?tz=", "?tz=Mars/Olympus", "America/New_York", "", "en", "America/New_York",
			[]string{"This server knows no time zone &#34;Mars/Olympus&#34;", "times are shown in America/New_York, as before"}},
		{"a ?tz= in small letters", "?tz=europe/berlin", "America/New_York", "", "zh", "America/New_York",
			[]string{"此服务器不认识时区“europe/berlin”", "是否应写作 Europe/Berlin？", "时间仍按 America/New_York 显示"}},
		{"a cookie the browser set to a zone too new for the server", "", "Mars/Olympus", "Asia/Shanghai", "zh", "Asia/Shanghai",
			[]string{"此服务器不认识时区“Mars/Olympus”", "时间仍按 Asia/Shanghai 显示"}},
		{"such a cookie and no zone before it", "", "Mars/Olympus", "", "en", "UTC",
			[]string{"&#34;Mars/Olympus&#34;", "times are shown in UTC, as before"}},
		{"?tz=Local, the server's own zone, which is never implied", "?tz=Local", "America/New_York", "", "en", "America/New_York",
			[]string{"“Local” would be this server&#39;s own zone, which the console never implies", "give an IANA zone name, such as Asia/Shanghai, Europe/Berlin or UTC",
				"Times are shown in America/New_York, as before"}},
		{"?tz=Local in Chinese", "?tz=Local", "", "", "zh", "UTC",
			[]string{"“Local” 指本服务器自身的时区", "请写 IANA 时区名，如 Asia/Shanghai、Europe/Berlin 或 UTC", "时间仍按 UTC 显示"}},
	} {
		c := consoleClient(t)
		site.signIn(t, c, site.tokens[apitoken.Read])
		u, _ := url.Parse(site.base)
		cookies := []*http.Cookie{{Name: "ql_tz", Value: tc.cookie, Path: "/"}}
		if tc.prev != "" {
			cookies = append(cookies, &http.Cookie{Name: "ql_tz_prev", Value: tc.prev, Path: "/"})
		}
		c.Jar.SetCookies(u, cookies)
		sep := "?"
		if tc.query != "" {
			sep = "&"
		}
		resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs"+tc.query+sep+"lang="+tc.lang, nil)
		_, refusal, _ := strings.Cut(page, `id="zone-refused"`)
		refusal, _, _ = strings.Cut(refusal, "</p>")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: runs page %d", tc.name, resp.StatusCode)
		}
		for _, want := range tc.says {
			if !strings.Contains(refusal, want) {
				t.Errorf("%s: the page's note on the zone lacks %q:\n%s", tc.name, want, page)
			}
		}
		if !strings.Contains(page, `data-tz="`+strings.TrimPrefix(tc.zone, "UTC")+`"`) || !strings.Contains(page, " "+tc.zone+"</p>") {
			t.Errorf("%s: the times are not shown in %s:\n%s", tc.name, tc.zone, page)
		}
	}
}

// storeUnknownZone gives the site's trigger a stored zone this server does
// not know, as a server whose zone database has it would have published
// it: the revision names the zone, with the digest that server computes.
// Revisions are immutable, so the store's guard is lifted for the edit and
// put back. The site's trigger sets no time policy.
func (s *consoleSite) storeUnknownZone(t *testing.T, zone string) {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(s.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var projectID, triggerID, taskID, taskDigest, name, expression, misfire, guard, guardSQL string
	var taskRevision int64
	var enabled bool
	if err := db.QueryRow(`SELECT project_id, trigger_id, task_id, task_revision, task_content_digest, name, enabled, expression, misfire_policy FROM trigger_revisions`).
		Scan(&projectID, &triggerID, &taskID, &taskRevision, &taskDigest, &name, &enabled, &expression, &misfire); err != nil {
		t.Fatal(err)
	}
	spec := trigger.Spec{Name: name, Enabled: enabled, Cron: trigger.Cron{Expression: expression, Timezone: zone, MisfirePolicy: trigger.MisfirePolicy(misfire)}}
	if err := db.QueryRow(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'trigger_revisions' AND sql LIKE '%BEFORE UPDATE%'`).Scan(&guard, &guardSQL); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER ` + guard, `UPDATE trigger_revisions SET timezone = ?, content_digest = ?`, guardSQL} {
		args := []any{}
		if strings.HasPrefix(q, "UPDATE") {
			args = []any{zone, trigger.ContentDigest(projectID, triggerID, taskID, taskRevision, taskDigest, spec)}
		}
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A trigger whose stored zone the zone database of this server's host
// lacks (a server with a newer one published it) is said so on every page
// that needs its zone, in the page's language, never as a trigger that
// has ended, a mistake to write otherwise or an internal error: its
// pages, the overview (which does not list it among the next fires at its
// cursor, a time no fire is made at, but names it), a backfill and a
// disable, each refusal saying what mends it. An apply of the trigger with
// a zone this server knows is the way out: it is taken, and the trigger
// disables then.
func TestATriggersZoneThisServerDoesNotKnowIsSaidInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	listed := `<a href="/triggers/` + site.triggerID + `">shop/nightly</a></td>`
	waitFor(t, "the overview to list the trigger's next fire", 5*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
		return strings.Contains(page, listed)
	})
	site.storeUnknownZone(t, "Mars/Olympus")
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/definitions?project=shop", nil)
	m := regexp.MustCompile(`(?s)<textarea id="def-yaml" name="yaml"[^>]*>(.*?)</textarea>`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(m[1], "timezone: Mars/Olympus") {
		t.Fatalf("the project's definitions do not show the stored zone:\n%s", page)
	}
	republished := strings.Replace(html.UnescapeString(m[1]), "Mars/Olympus", "UTC", 1)
	trig := site.base + "/triggers/" + site.triggerID
	// The overview names the trigger, then its zone as the language
	// writes a remark: in Chinese between full-width parentheses.
	zoneAfter := map[string]string{"en": " (Mars/Olympus)", "zh": "（Mars/Olympus）"}
	for _, tc := range []struct {
		lang                             string
		fires, page, refusal, afterMatch string
		overview                         string
	}{
		{"en", "none: this server does not know its time zone",
			"This server does not know the trigger&#39;s time zone “Mars/Olympus”: the zone database of its host lacks it",
			"this server does not know its time zone &#34;Mars/Olympus&#34;: the zone database of its host lacks it",
			"point ZONEINFO at one that has the zone (a zoneinfo directory or zip, in the environment of the server, which reads it as it starts, and of the commands that read its database), or run a newer release of this server, whose own copy it falls back on; or apply the trigger again with a zone this host knows",
			"Not listed: the next fires of these triggers cannot be worked out here"},
		{"zh", "无：此服务器不认识它的时区",
			"此服务器不认识该触发器的时区“Mars/Olympus”：服务器主机的时区数据库中没有这个时区",
			"此服务器不认识该触发器的时区“Mars/Olympus”：服务器主机的时区数据库中没有这个时区",
			"或用 ZONEINFO 指向含有该时区的时区数据库（zoneinfo 目录或 zip 文件，设在服务器的环境中并重启服务器，也设在 ql 的环境中），或使用较新版本的服务器（它自带的时区数据在主机缺少时区时使用）；也可以用本主机认识的时区重新应用该触发器",
			"未列出：此服务器不认识以下触发器的时区"},
	} {
		for _, p := range []string{"/triggers", trig} {
			if _, page := httpcall.Form(t, c, http.MethodGet, site.base+strings.TrimPrefix(p, site.base)+"?lang="+tc.lang, nil); !strings.Contains(page, tc.fires) || strings.Contains(page, map[string]string{"en": "has ended", "zh": "已结束"}[tc.lang]) {
				t.Errorf("%s in %s: the next fires do not say %q, or say the trigger ended:\n%s", p, tc.lang, tc.fires, page)
			}
		}
		if _, page := httpcall.Form(t, c, http.MethodGet, trig+"?lang="+tc.lang, nil); !strings.Contains(page, `id="trigger-zone-unknown"`) || !strings.Contains(page, tc.page) ||
			!strings.Contains(page, `<dd id="next-fire">—</dd>`) {
			t.Errorf("the trigger's page in %s does not say %q, or shows a next fire:\n%s", tc.lang, tc.page, page)
		}
		_, overview := httpcall.Form(t, c, http.MethodGet, site.base+"/?lang="+tc.lang, nil)
		_, unknown, _ := strings.Cut(overview, `id="next-fires-unknown"`)
		unknown, _, _ = strings.Cut(unknown, "</p>")
		if strings.Contains(overview, listed) || !strings.Contains(unknown, tc.overview) || !strings.Contains(unknown, `<a href="/triggers/`+site.triggerID+`">shop/nightly</a>`+zoneAfter[tc.lang]) {
			t.Errorf("the overview in %s lists the trigger's next fire, or does not name it saying %q:\n%s", tc.lang, tc.overview, overview)
		}
		for what, form := range map[string]struct {
			path   string
			values url.Values
		}{
			"a backfill": {"/triggers/" + site.triggerID + "/backfill/preview", url.Values{"from": {"2026-01-01T00:00"}, "to": {"2026-01-02T00:00"}}},
			"a disable":  {"/triggers/" + site.triggerID + "/disable", url.Values{}},
		} {
			form.values.Set("csrf", csrf)
			resp, page := httpcall.Form(t, c, http.MethodPost, site.base+form.path+"?lang="+tc.lang, form.values)
			if resp.StatusCode == http.StatusInternalServerError || resp.StatusCode < 400 || !strings.Contains(page, tc.refusal) || !strings.Contains(page, tc.afterMatch) {
				t.Errorf("%s in %s: %d; want it refused saying %q and %q:\n%s", what, tc.lang, resp.StatusCode, tc.refusal, tc.afterMatch, page)
			}
		}
	}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {republished}}); resp.StatusCode != http.StatusOK || strings.Contains(page, `role="alert"`) {
		t.Fatalf("the apply of the trigger in UTC: %d; want it taken:\n%s", resp.StatusCode, page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, trig, nil); strings.Contains(page, `id="trigger-zone-unknown"`) || !strings.Contains(page, "UTC") {
		t.Errorf("the trigger's page after the apply in UTC still says its zone is unknown:\n%s", page)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodPost, trig+"/disable", url.Values{"csrf": {csrf}}); !tookForm(resp) {
		t.Errorf("the disable after the apply in UTC: %d, want it taken", resp.StatusCode)
	}
}

// shownAt is the instant ms in loc as a page's HTML shows it: with its
// offset from UTC (none of the zones the tests use it for has none), its
// plus sign escaped as the page's template escapes it.
func shownAt(ms int64, loc *time.Location) string {
	return strings.ReplaceAll(time.UnixMilli(ms).In(loc).Format("2006-01-02 15:04:05 UTC-07:00"), "+", "&#43;")
}
