package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A queued Run's live log sends the facts above its page's tables as the
// page renders them, in the page's language and the viewer's zone (the
// ql_tz cookie): at the start, the Run queued, why it waits and no start;
// once the Run starts, running, when it started in the viewer's zone and
// no reason to wait, so a page shown while the Run waited can show them
// without loading again.
func TestALiveLogSendsTheRunsFactsInThePagesLanguageAndZoneAsTheyChange(t *testing.T) {
	t.Parallel()
	const zone = "Asia/Shanghai"
	h := holdTheOnlySlot(t, zone)

	_, events := h.site.logStream(t, h.c, "/runs/"+h.second+"/log?lang=zh", "")
	facts := nextFacts(t, events)
	if !strings.Contains(facts, `data-state="queued">排队中</span>`) || !strings.Contains(facts, `<dt id="run-waiting-title">`) ||
		!strings.Contains(facts, "<dt>计划时间</dt>") || strings.Contains(facts, `id="run-started"`) {
		t.Fatalf("the queued Run's stream starts with the facts %q; want it queued (排队中), why it waits, in Chinese, and no start", facts)
	}
	h.site.cancel(t, h.c, h.csrf, h.first)
	for !strings.Contains(facts, `data-state="running"`) {
		facts = nextFacts(t, events)
	}
	d := h.site.runDetail(t, h.second)
	loc, err := time.LoadLocation(zone)
	if err != nil || len(d.Attempts) != 1 || d.Attempts[0].StartedAtMs == nil {
		t.Fatalf("the zone %s (%v), the Run's attempts %+v", zone, err, d.Attempts)
	}
	started := shownAt(*d.Attempts[0].StartedAtMs, loc)
	if !strings.Contains(facts, `>运行中</span>`) || !strings.Contains(facts, `<dt>启动时间</dt><dd id="run-started"><span class="time">`+started+`</span></dd>`) ||
		strings.Contains(facts, "run-waiting") {
		t.Fatalf("the started Run's facts are %q; want it running (运行中), started at %s (启动时间), and no reason to wait", facts, started)
	}
	h.releaseSlot(t)
}

// While a Run waits to retry, its live log's facts say which attempt comes
// next and from when, in the page's language and the viewer's zone, as
// its run.retry_wait event says it.
func TestALiveLogsFactsSayWhenTheNextRetryStarts(t *testing.T) {
	t.Parallel()
	failed := filepath.Join(t.TempDir(), "failed")
	script := `echo first; until [ -e ` + failed + ` ]; do sleep 0.05; done; exit 3`
	site := startConsoleSiteCommand(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds(),
			Retry: task.RetryPolicy{MaxAttempts: 2, BackoffMs: time.Hour.Milliseconds(), On: []string{task.RetryOnFailed}}}, func(*Config) {})
	c := consoleClient(t)
	const zone = "America/New_York"
	u, _ := url.Parse(site.base)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "ql_tz", Value: zone, Path: "/"}})
	id := site.runNow(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]))
	waitFor(t, "the first attempt to run", 10*time.Second, func() bool { return site.runDetail(t, id).Run.State == "running" })

	_, events := site.logStream(t, c, "/runs/"+id+"/log?lang=zh", "")
	facts := nextFacts(t, events)
	if strings.Contains(facts, "run-next-retry") {
		t.Fatalf("the running Run's facts are %q; want no next retry while it runs", facts)
	}
	if err := os.WriteFile(failed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(facts, `data-state="retry_wait"`) {
		facts = nextFacts(t, events)
	}
	d := site.runDetail(t, id)
	loc, err := time.LoadLocation(zone)
	if err != nil || len(d.Attempts) != 2 {
		t.Fatalf("the zone %s (%v), the Run's attempts %+v", zone, err, d.Attempts)
	}
	// The retry's attempt exists from the retry's wait on, available
	// once the backoff has passed.
	var at int64
	for _, e := range d.Events {
		var p struct {
			AvailableAtMs int64 `json:"availableAtMs"`
		}
		if e.Name == "run.retry_wait" && json.Unmarshal(e.Payload, &p) == nil {
			at = p.AvailableAtMs
		}
	}
	next := `第 2 次尝试于 <span class="time">` + shownAt(at, loc) + "</span> 开始"
	if at == 0 || !strings.Contains(facts, `<dt>下次重试</dt><dd id="run-next-retry">`+next+`</dd>`) {
		t.Fatalf("the Run waiting to retry has the facts %q; want its next retry (下次重试): %s", facts, next)
	}
}

// nextFacts is the data of the stream's next "facts" event, the other
// events before it passed over: the page's facts as HTML.
func nextFacts(t *testing.T, events *sseStream) string {
	t.Helper()
	data := nextEvent(t, events, "facts").data
	var html string
	if err := json.Unmarshal([]byte(data), &html); err != nil {
		t.Fatalf("a facts event carries %q, not a JSON string: %v", data, err)
	}
	return html
}
