package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The triggers page and a trigger's page list its next five fires in the
// trigger's zone and in the viewer's (the tz cookie the console's script
// sets, or ?tz=); the runs page keeps the Runs of a time window given in
// the viewer's zone.
func TestConsoleShowsFiresInBothZonesAndFiltersRunsByTime(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	u, _ := url.Parse(site.base)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "ql_tz", Value: "America/New_York", Path: "/"}})
	var page string
	waitFor(t, "the triggers page to list the next fires", 5*time.Second, func() bool {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers", nil)
		return strings.Count(page, `class="fire-trigger"`) == 5
	})
	// 03:00 on 1 January in Shanghai is 14:00 on 31 December in New York.
	if strings.Count(page, "-01-01 03:00:00 CST") != 5 || strings.Count(page, "-12-31 14:00:00 EST") != 5 {
		t.Fatalf("the triggers page does not show five fires in both zones:\n%s", page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=Europe/Berlin", nil); strings.Count(page, "-12-31 20:00:00 CET</span>") != 5 {
		t.Fatalf("the trigger page with ?tz=Europe/Berlin does not show five fires in Berlin time:\n%s", page)
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
// were shown in: the cookie's, or the one before the cookie's.
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
