package console

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
)

// The Runs page's window says what it filters on, the time Runs were
// created (a backfill creates Runs for past scheduled times), and offers
// the last 24 hours in one tap: a link that keeps the other fields and
// opens the window 24 hours ago in the viewer's zone.
func TestTheRunsWindowSaysItIsTheCreationTimeAndOffersTheLast24Hours(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	for l, label := range map[string]string{"en": "Created from", "zh": "创建时间 起始"} {
		before := time.Now()
		w := site.do(apitoken.Read, "/runs?project=shop&state=failed&tz=Asia/Shanghai&lang="+l, nil)
		page := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusOK || !strings.Contains(page, "<label>"+label+" ") || !strings.Contains(page, `id="runs-window">`+tr(l, "runs.window")) {
			t.Fatalf("%s: %d; want the window labelled %q and said to be the creation time:\n%s", l, w.Code, label, page)
		}
		_, href, _ := strings.Cut(page, `id="runs-last24" href="`)
		href, _, _ = strings.Cut(href, `"`)
		u, err := url.Parse(href)
		if err != nil {
			t.Fatalf("%s: the last-24-hours link %q: %v", l, href, err)
		}
		q := u.Query()
		from, err := time.ParseInLocation(run.WindowLayouts[0], q.Get("from"), zoneOf("Asia/Shanghai"))
		if err != nil {
			t.Fatalf("%s: the link's window %q: %v", l, q.Get("from"), err)
		}
		if want := before.Add(-24 * time.Hour).Truncate(time.Minute); u.Path != "/runs" || q.Get("project") != "shop" || q.Get("state") != "failed" || q.Has("to") ||
			from.Before(want.Add(-time.Minute)) || from.After(want.Add(time.Minute)) {
			t.Errorf("%s: the last-24-hours link %q; want /runs keeping project and state, from %s in Asia/Shanghai and no end", l, href, want.In(zoneOf("Asia/Shanghai")).Format(run.WindowLayouts[0]))
		}
		if w := site.do(apitoken.Read, href+"&lang="+l, nil); w.Code != http.StatusOK {
			t.Errorf("%s: following the link: %d:\n%s", l, w.Code, w.Body.String())
		}
	}
}
