package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// With jitter, the console says when an occurrence is admitted as well as
// its nominal time, as `ql triggers show` does: a trigger's next fire and
// its next five fires, and the overview's next fires, each read "nominal
// (due …)". An occurrence whose nominal time has passed while it waits out
// its jitter is the next fire on the page, first in its list and first in
// the API's (the CLI's) next fire times: it has not fired yet.
func TestConsoleSaysWhenAJitteredOccurrenceIsDueAndListsTheOneWaitingOutItsJitter(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Now().UnixMilli())
	jitter := time.Hour.Milliseconds()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, JitterMs: jitter},
		"true", func(cfg *Config) { cfg.NowMs = now.Load })
	type detail struct {
		Trigger   struct{ NextFireAtMs, NextDueAtMs *int64 }
		NextFires []struct{ AtMs, DueAtMs int64 }
	}
	read := func() detail {
		t.Helper()
		status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/triggers/"+site.triggerID, site.tokens[apitoken.Read], nil)
		var d detail
		if status != http.StatusOK || json.Unmarshal(body, &d) != nil {
			t.Fatalf("GET the trigger: %d %s", status, body)
		}
		return d
	}
	// The first round sets the cursor: the next 03:00 and its due time.
	var d detail
	waitFor(t, "the schedule to set the trigger's cursor", 10*time.Second, func() bool {
		d = read()
		return d.Trigger.NextFireAtMs != nil
	})
	nominal, due := *d.Trigger.NextFireAtMs, *d.Trigger.NextDueAtMs
	if due != schedule.FireAt(site.triggerID, nominal, jitter) || due == nominal {
		t.Fatalf("the cursor %d is due at %d, want its jittered time %d, after it", nominal, due, schedule.FireAt(site.triggerID, nominal, jitter))
	}
	// Its nominal time comes; its jitter holds it back until its due time.
	now.Store(nominal)
	day := 24 * time.Hour.Milliseconds()
	if d = read(); len(d.NextFires) != 5 || d.NextFires[0].AtMs != nominal || d.NextFires[0].DueAtMs != due || d.NextFires[1].AtMs != nominal+day {
		t.Fatalf("the API's next fire times at the occurrence's nominal time: %+v, want %d (due %d) first, then a day later", d.NextFires, nominal, due)
	}

	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	fire := func(at, due int64, dueWord string) string {
		const layout = `<span class="time">2006-01-02 15:04:05 UTC</span>`
		if due == at {
			return time.UnixMilli(at).UTC().Format(layout)
		}
		return time.UnixMilli(at).UTC().Format(layout) + strings.Replace(dueWord, "%s", time.UnixMilli(due).UTC().Format(layout), 1)
	}
	first := fire(nominal, due, ` <span class="nowrap">(due</span> %s<span class="nowrap">)</span>`)
	second := fire(nominal+day, schedule.FireAt(site.triggerID, nominal+day, jitter), ` <span class="nowrap">(due</span> %s<span class="nowrap">)</span>`)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=en", nil)
	for _, want := range []string{
		`id="next-fire">` + first + `<`,
		`<li>` + first + `</li><li>` + second + `</li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the trigger page does not show %s:\n%s", want, page)
		}
	}
	if n := strings.Count(page, `<li><span class="time">`); n != 5 {
		t.Errorf("the trigger page lists %d next fires, want 5:\n%s", n, page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang=zh", nil); !strings.Contains(page, `id="next-fire">`+fire(nominal, due, `<span class="nowrap">（抖动后</span> %s <span class="nowrap">到期）</span>`)) {
		t.Errorf("the Chinese trigger page does not say in Chinese when the next fire is due:\n%s", page)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/?lang=en", nil); !strings.Contains(page, `<td data-label="Next fire">`+first+`</td></tr>`) || strings.Contains(page, "Your time") {
		t.Errorf("the overview's next fires do not say when the trigger's next fire is due, %s, once, with no column of the viewer's time (the viewer's zone is the trigger's):\n%s", first, page)
	}
}
