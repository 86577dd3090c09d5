package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A queued Run's live log sends the rows of its page's attempts table as
// the page renders them, in the page's language and the viewer's zone
// (the ql_tz cookie): at the start, the attempt waiting to start, with no
// start time and no log to download; once the Run starts, the attempt
// running, its start time in the viewer's zone and the link to its log so
// far, so a page shown while the Run waited can show them without loading
// again.
func TestALiveLogSendsTheAttemptsRowsInThePagesLanguageAndZoneAsTheyChange(t *testing.T) {
	t.Parallel()
	const zone = "Asia/Shanghai"
	h := holdTheOnlySlot(t, zone)

	_, events := h.site.logStream(t, h.c, "/runs/"+h.second+"/log?lang=zh", "")
	rows := attemptRows(t, nextRows(t, events))
	if len(rows) != 1 || !strings.Contains(rows[0], `class="attempt-state">等待启动</td>`) ||
		!strings.Contains(rows[0], `class="attempt-started">—</td>`) || strings.Contains(rows[0], "/download?") {
		t.Fatalf("the queued Run's stream starts with the rows %q; want its one attempt waiting to start (等待启动), not started, no log to download", rows)
	}
	h.site.cancel(t, h.c, h.csrf, h.first)
	for !strings.Contains(rows[0], `class="attempt-state">运行中</td>`) {
		if rows = attemptRows(t, nextRows(t, events)); len(rows) != 1 {
			t.Fatalf("the stream sent the rows %q; want the Run's one attempt", rows)
		}
	}
	a := h.site.runDetail(t, h.second).Attempts[0]
	loc, err := time.LoadLocation(zone)
	if err != nil || a.StartedAtMs == nil {
		t.Fatalf("the zone %s (%v), the attempt's start %v", zone, err, a.StartedAtMs)
	}
	started := shownAt(*a.StartedAtMs, loc)
	link := `href="/runs/` + h.second + `/download?attempt=1"`
	if !strings.Contains(rows[0], `class="attempt-started"><span class="time">`+started+`</span></td>`) || !strings.Contains(rows[0], link) || !strings.Contains(rows[0], "下载日志（截至目前）") {
		t.Fatalf("the running attempt's row is %q; want its start, %s, and its log so far (下载日志（截至目前）, %s)", rows[0], started, link)
	}
	h.releaseSlot(t)
}

// A Run's live log sends the attempts' rows again when a retry creates an
// attempt: the first one failed with its exit code, the new one running
// with its log so far.
func TestALiveLogSendsARetrysNewAttemptInTheAttemptsRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	failed, release := filepath.Join(dir, "failed"), filepath.Join(dir, "release")
	// The first attempt fails once failed exists; the second runs until
	// release exists.
	script := `if [ -e ` + dir + `/tried ]; then echo second; until [ -e ` + release + ` ]; do sleep 0.05; done;
else touch ` + dir + `/tried; echo first; until [ -e ` + failed + ` ]; do sleep 0.05; done; exit 3; fi`
	site := startConsoleSiteCommand(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds(),
			Retry: task.RetryPolicy{MaxAttempts: 2, On: []string{task.RetryOnFailed}}}, func(*Config) {})
	c := consoleClient(t)
	id := site.runNow(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]))
	// The Run runs from its attempt's start on, a moment before the
	// attempt itself says it runs (starting, then running).
	waitFor(t, "the first attempt to run", 10*time.Second, func() bool {
		d := site.runDetail(t, id)
		return len(d.Attempts) == 1 && d.Attempts[0].State == "running"
	})

	_, events := site.logStream(t, c, "/runs/"+id+"/log?lang=en", "")
	if rows := attemptRows(t, nextRows(t, events)); len(rows) != 1 || !strings.Contains(rows[0], `class="attempt-state">running</td>`) {
		t.Fatalf("the running Run's stream starts with the rows %q; want its one attempt running", rows)
	}
	if err := os.WriteFile(failed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rows := []string{}
	for len(rows) != 2 || !strings.Contains(rows[1], `class="attempt-state">running</td>`) {
		rows = attemptRows(t, nextRows(t, events))
	}
	if !strings.Contains(rows[0], `class="exit">3</td>`) || !strings.Contains(rows[0], `href="/runs/`+id+`/download?attempt=1"`) ||
		!strings.Contains(rows[1], `href="/runs/`+id+`/download?attempt=2"`) || !strings.Contains(rows[1], "Download log (so far)") {
		t.Fatalf("after the retry the stream sent the rows %q; want attempt 1 failed with exit code 3 and its log, attempt 2 running with its log so far", rows)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// runDetail is a Run as the API shows it.
func (s *consoleSite) runDetail(t *testing.T, id string) view.RunDetail {
	t.Helper()
	status, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/runs/"+id, s.tokens[apitoken.Read], nil)
	var d view.RunDetail
	if status != http.StatusOK || json.Unmarshal(body, &d) != nil {
		t.Fatalf("GET /api/v1/runs/%s: %d %s", id, status, body)
	}
	return d
}

// nextRows is the data of the stream's next "attempts" event, the other
// events before it passed over.
func nextRows(t *testing.T, events *sseStream) string {
	t.Helper()
	return nextEvent(t, events, "attempts").data
}

// attemptRows are the table rows an "attempts" event's data holds.
func attemptRows(t *testing.T, data string) []string {
	t.Helper()
	var html string
	if err := json.Unmarshal([]byte(data), &html); err != nil {
		t.Fatalf("an attempts event carries %q, not a JSON string: %v", data, err)
	}
	rows := strings.SplitAfter(strings.TrimSpace(html), "</tr>")
	return rows[:len(rows)-1]
}
