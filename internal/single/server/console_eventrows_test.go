package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// slotThenRetryScript is a command whose first Run holds the only slot
// until the file free exists, and whose next Run fails its first attempt
// once fail exists and runs its second until release exists.
func slotThenRetryScript(dir string) string {
	return `if [ ! -e ` + dir + `/held ]; then touch ` + dir + `/held; echo holding; until [ -e ` + dir + `/free ]; do sleep 0.05; done;
elif [ ! -e ` + dir + `/tried ]; then touch ` + dir + `/tried; echo first; until [ -e ` + dir + `/fail ]; do sleep 0.05; done; exit 3;
else echo second; until [ -e ` + dir + `/release ]; do sleep 0.05; done; fi`
}

// A queued Run's live log sends the rows of its page's events table as the
// page renders them, in the page's language and the viewer's zone: at the
// start, created and queued; then, each time the Run's events grow, all of
// them again, the new ones after those already sent (its start and its
// attempt's, a retry's wait, queueing and second start), so a page shown
// while the Run waited lists them as they happen, without loading again.
// Rows that read the same are not sent again: each event of the kind
// differs from the one before it.
func TestALiveLogSendsTheEventsRowsAsTheRunGoesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	site := startConsoleSiteCommand(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: slotThenRetryScript(dir), TimeoutMs: time.Hour.Milliseconds(),
			Retry: task.RetryPolicy{MaxAttempts: 2, On: []string{task.RetryOnFailed}}}, func(c *Config) { c.Concurrency = 1 })
	touch := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	const zone = "Asia/Shanghai"
	u, _ := url.Parse(site.base)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "ql_tz", Value: zone, Path: "/"}})
	first := site.runNow(t, c, csrf)
	waitFor(t, "the first Run to hold the slot", 10*time.Second, func() bool { return site.runDetail(t, first).Run.State == run.Running })
	second := site.runNow(t, c, csrf)

	_, events := site.logStream(t, c, "/runs/"+second+"/log?lang=zh", "")
	var sent []string
	rows := func() []string {
		t.Helper()
		data := nextEvent(t, events, "events").data
		if len(sent) > 0 && data == sent[len(sent)-1] {
			t.Fatalf("the stream sent the events' rows again as they were: %s", data)
		}
		sent = append(sent, data)
		return eventRows(t, data)
	}
	if got := rowWords(rows()); strings.Join(got, " ") != "已创建 已排队" {
		t.Fatalf("the queued Run's stream starts with the events %q; want 已创建 (created), 已排队 (queued)", got)
	}
	touch("free")
	got := rows()
	for !strings.HasSuffix(strings.Join(rowWords(got), " "), "运行中 尝试已启动") {
		got = rows()
	}
	touch("fail")
	for strings.Count(strings.Join(rowWords(got), " "), "尝试已启动") < 2 {
		got = rows()
	}
	if want := "已创建 已排队 运行中 尝试已启动 等待重试 已排队 运行中 尝试已启动"; strings.Join(rowWords(got), " ") != want {
		t.Fatalf("once the Run retried, the stream's events read %q; want %s", rowWords(got), want)
	}

	d := site.runDetail(t, second)
	loc, err := time.LoadLocation(zone)
	if err != nil || len(d.Events) != len(got) {
		t.Fatalf("the zone %s (%v); the Run has %d events, the stream sent %d rows", zone, err, len(d.Events), len(got))
	}
	for i, e := range d.Events {
		at := shownAt(e.CreatedAtMs, loc)
		if !strings.Contains(got[i], `<td data-label="#">`+strconv.FormatInt(e.Seq, 10)+`</td>`) || !strings.Contains(got[i], "<code>"+e.Name+"</code>") ||
			!strings.Contains(got[i], ">"+at+"</span></td>") {
			t.Fatalf("the stream's row %d is %q; want the Run's event %d, %s, at %s (Shanghai)", i+1, got[i], e.Seq, e.Name, at)
		}
	}
	if !strings.Contains(got[5], "原因：重试") || !strings.Contains(got[4], "退出码 3") {
		t.Fatalf("the retry's rows are %q and %q; want the wait saying the exit code (退出码 3) and the queueing its reason (原因：重试)", got[4], got[5])
	}
	touch("release")
	e := next(t, events)
	for e.name == "log" {
		e = next(t, events)
	}
	if e.name != "end" || e.data != `"succeeded"` {
		t.Fatalf("after the second attempt ended the stream sent %+v; want its end, succeeded", e)
	}
}

// eventRows are the table rows an "events" event's data holds.
func eventRows(t *testing.T, data string) []string {
	t.Helper()
	var html string
	if err := json.Unmarshal([]byte(data), &html); err != nil {
		t.Fatalf("an events event carries %q, not a JSON string: %v", data, err)
	}
	rows := strings.SplitAfter(html, "</tr>")
	return rows[:len(rows)-1]
}

// eventWords finds the words a row of the events table names its event in.
var eventWords = regexp.MustCompile(`<span class="event-name">([^<]*)</span>`)

// rowWords are the words rows name their events in, in order.
func rowWords(rows []string) []string {
	names := make([]string, len(rows))
	for i, r := range rows {
		if m := eventWords.FindStringSubmatch(r); m != nil {
			names[i] = m[1]
		}
	}
	return names
}
