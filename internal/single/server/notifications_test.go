package server

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// toldFile is the definitions file of project, whose task fails at once
// when its trigger, yearly, is run now, and whose failures are sent to a
// webhook channel of each name in channels, at receiver/NAME, each by a
// rule of its own ({on: failed, channel: NAME}), in that order.
func toldFile(project, receiver string, channels ...string) string {
	var defs, rules strings.Builder
	for _, ch := range channels {
		fmt.Fprintf(&defs, "    %s: {type: webhook, url: \"%s/%s\"}\n", ch, receiver, ch)
		fmt.Fprintf(&rules, "    - {on: failed, channel: %s}\n", ch)
	}
	return "project: " + project + "\nnotifications:\n  channels:\n" + defs.String() + "  rules:\n" + rules.String() +
		"tasks:\n  - name: fails\n    script: exit 3\ntriggers:\n  - name: yearly\n    task: fails\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n"
}

// downAnswer is what /down answers while it refuses: markup a page must
// show as text.
const downAnswer = "<b>down</b>"

// toldSite is a console site whose project told has failed failures
// times, each failure one dead notification (its channel down refused the
// one attempt a notification gets here) and one delivered one.
type toldSite struct {
	*consoleSite
	hook      *httptest.Server
	log       *syncbuf.Buffer
	projectID string
	// accept makes /down take what it is sent from then on.
	accept atomic.Bool
	mu     sync.Mutex
	// downKeys are the idempotency keys of the requests /down took.
	downKeys []string
}

func startToldSite(t *testing.T, failures int) *toldSite {
	t.Helper()
	s := &toldSite{log: &syncbuf.Buffer{}}
	s.hook = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/down" && !s.accept.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, downAnswer)
			return
		}
		if r.URL.Path == "/down" {
			s.mu.Lock()
			s.downKeys = append(s.downKeys, r.Header.Get(notify.HeaderIdempotencyKey))
			s.mu.Unlock()
		}
	}))
	t.Cleanup(s.hook.Close)
	s.consoleSite = startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) {
			c.NotifyMaxAttempts = 1
			c.Logger = slog.New(slog.NewTextHandler(s.log, nil))
		})
	// /down refuses them with an answer a page must escape; /ok takes them.
	tg := s.applyOverAPI(t, []byte(toldFile("told", s.hook.URL, "down", "ok")), "told")
	s.projectID = tg.ProjectID
	for range failures {
		s.runNowOverAPI(t, tg.TriggerID)
	}
	waitFor(t, "every failure's notifications to be dead or delivered", 30*time.Second, func() bool {
		l := s.list(t, "?state=dead")
		d := s.list(t, "?state=delivered")
		return len(l.Notifications) == failures && len(d.Notifications) == failures
	})
	return s
}

// list is GET /api/v1/notifications with query, asked with a read token.
func (s *toldSite) list(t *testing.T, query string) view.NotificationList {
	t.Helper()
	st, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/notifications"+query, s.tokens[apitoken.Read], nil)
	var l view.NotificationList
	if err := json.Unmarshal(body, &l); st != http.StatusOK || err != nil {
		t.Fatalf("notifications%s: %d %s", query, st, body)
	}
	return l
}

func idsOf(ns []view.Notification) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

// The API lists the outbox newest first by state and project, a page after
// its cursor, with the channel by name and never its URL; an operate
// token retries a dead notification, which is then sent again with the
// same idempotency key, and the retry is logged with who asked. A read
// token may not retry, a second retry is refused as no longer dead, and a
// filter or an id that is none is refused with its reason.
func TestTheAPIListsNotificationsAndRetriesADeadOne(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 3)
	all := s.list(t, "")
	if len(all.Notifications) != 6 || all.Next != "" {
		t.Fatalf("every notification: %+v; want the 6 of 3 failures, one page", all)
	}
	for i, n := range all.Notifications {
		if i > 0 && n.ID >= all.Notifications[i-1].ID {
			t.Fatalf("notification %d (%s) follows %s: want newest first", i, n.ID, all.Notifications[i-1].ID)
		}
		if n.Project != "told" || n.Trigger != "yearly" || n.RunID == "" || n.Event != "failed" || n.ChannelKind != "webhook" || n.Attempts != 1 ||
			(n.State == "dead") != (n.Channel == "down") || n.State == "dead" && (!strings.Contains(n.LastError, "503") || n.LastErrorReason != string(notify.ReasonReceiverStatus)) ||
			n.State != "dead" && n.LastErrorReason != "" {
			t.Fatalf("notification %+v: want told/yearly's failure, sent once, dead on down with the 503 and its reason receiver_status", n)
		}
	}
	if _, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/notifications", s.tokens[apitoken.Read], nil); strings.Contains(string(body), s.hook.URL) {
		t.Fatalf("the listing shows a channel's URL: %s", body)
	}

	var dead []view.Notification
	for _, n := range all.Notifications {
		if n.State == "dead" {
			dead = append(dead, n)
		}
	}
	first := s.list(t, "?state=dead&limit=2")
	rest := s.list(t, "?state=dead&limit=2&after="+first.Next)
	if got := append(idsOf(first.Notifications), idsOf(rest.Notifications)...); !slices.Equal(got, idsOf(dead)) || first.Next == "" || rest.Next != "" {
		t.Fatalf("dead notifications 2 a page: %v (cursor %q), then %v (cursor %q); want %v", idsOf(first.Notifications), first.Next,
			idsOf(rest.Notifications), rest.Next, idsOf(dead))
	}
	if got := s.list(t, "?project="+s.projectID+"&state=delivered"); len(got.Notifications) != 3 {
		t.Fatalf("told's delivered notifications: %+v, want 3", got)
	}
	if got := s.list(t, "?project="+ids.New()); len(got.Notifications) != 0 {
		t.Fatalf("another project's notifications: %+v, want none", got)
	}
	for query, want := range map[string]string{
		"?state=failed":    string(notify.RefusalNotificationState),
		"?after=yesterday": string(run.RefusalListNotAnID),
		"?limit=501":       string(httpapi.RefusalQueryNotACount),
		"?channel=down":    string(httpapi.RefusalQueryUnknown),
	} {
		st, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/api/v1/notifications"+query, s.tokens[apitoken.Read], nil)
		var e apiError
		if err := json.Unmarshal(body, &e); st != http.StatusBadRequest || err != nil || e.Error.Code != "invalid" || string(e.Error.Reason) != want {
			t.Errorf("notifications%s: %d %s; want 400 invalid, reason %q", query, st, body, want)
		}
	}

	retry := func(token, id string) (int, []byte) {
		st, body, _ := httpcall.Bearer(t, http.MethodPost, s.base+"/api/v1/notifications/"+id+"/retry", token, nil)
		return st, body
	}
	target := dead[len(dead)-1]
	if st, body := retry(s.tokens[apitoken.Read], target.ID); st != http.StatusForbidden {
		t.Fatalf("retry with a read token: %d %s; want 403", st, body)
	}
	s.accept.Store(true)
	st, body := retry(s.tokens[apitoken.Operate], target.ID)
	var retried struct{ Notification view.Notification }
	if err := json.Unmarshal(body, &retried); st != http.StatusOK || err != nil || retried.Notification.ID != target.ID ||
		retried.Notification.State != "pending" || retried.Notification.Attempts != target.Attempts ||
		retried.Notification.AttemptsBeforeRetry != target.Attempts || retried.Notification.RetriedAtMs == nil ||
		retried.Notification.RetriedBy != "api:console-operate@127.0.0.1" {
		t.Fatalf("retry with an operate token: %d %s; want the notification pending, its %d attempts kept and the retry by hand recorded with the token and address as who asked",
			st, body, target.Attempts)
	}
	if !strings.Contains(s.log.String(), "code="+notify.CodeRetried+" notification="+target.ID+" actor=api:console-operate@127.0.0.1") {
		t.Errorf("the retry is not logged with who asked:\n%s", s.log.String())
	}
	waitFor(t, "the retried notification to be delivered", 30*time.Second, func() bool {
		for _, n := range s.list(t, "?state=delivered").Notifications {
			if n.ID == target.ID {
				return true
			}
		}
		return false
	})
	s.mu.Lock()
	keys := slices.Clone(s.downKeys)
	s.mu.Unlock()
	if !slices.Equal(keys, []string{target.ID}) {
		t.Fatalf("the receiver took keys %v after the retry; want the retried notification's own, once", keys)
	}
	for _, c := range []struct {
		id     string
		status int
		want   string
	}{
		{target.ID, http.StatusConflict, string(notify.RefusalNotificationNotDead)},
		{ids.New(), http.StatusNotFound, string(notify.RefusalNotificationMissing)},
		{"not-an-id", http.StatusBadRequest, string(notify.RefusalNotANotificationID)},
	} {
		st, body := retry(s.tokens[apitoken.Operate], c.id)
		var e apiError
		if err := json.Unmarshal(body, &e); st != c.status || err != nil || string(e.Error.Reason) != c.want {
			t.Errorf("retry of %s: %d %s; want %d, reason %q", c.id, st, body, c.status, c.want)
		}
	}
}

// The console's Notifications page, linked from the navigation and from
// the overview's count of dead notifications, lists them newest first with
// their state, channel, rule, Run and last error (the receiver's answer as
// text, never as markup), in English and in Chinese; it filters by state
// and by project (chosen by name) and pages by its cursor. Retry is
// offered on a dead one to an operate session only; it takes the form's
// CSRF token, makes the notification pending, logs who asked and comes
// back to the list as it was filtered, which says so.
func TestTheConsoleListsNotificationsAndRetriesADeadOne(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 3)
	reader := consoleClient(t)
	s.signIn(t, reader, s.tokens[apitoken.Read])
	get := func(c *http.Client, path string) string {
		t.Helper()
		resp, page := httpcall.Form(t, c, http.MethodGet, s.base+path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d\n%s", path, resp.StatusCode, page)
		}
		return page
	}
	overview := get(reader, "/")
	if !strings.Contains(overview, `id="nav-notifications"`) || !strings.Contains(overview, "3 notifications could not be delivered (dead)") ||
		!strings.Contains(overview, `href="/notifications?state=dead"`) {
		t.Fatalf("the overview does not link the notifications page or count the dead ones:\n%s", overview)
	}
	// The language switch sets a cookie: Chinese is read by a client of
	// its own.
	chinese := consoleClient(t)
	s.signIn(t, chinese, s.tokens[apitoken.Read])
	if zh := get(chinese, "/?lang=zh"); !strings.Contains(zh, "3 条通知无法送达") {
		t.Errorf("the Chinese overview does not count the dead notifications:\n%s", zh)
	}
	page := get(reader, "/notifications")
	if n := strings.Count(page, `<tr id="notification-`); n != 6 || !strings.Contains(page, "&lt;b&gt;down&lt;/b&gt;") || strings.Contains(page, downAnswer) ||
		!strings.Contains(page, `<a href="/runs/`) || !strings.Contains(page, "down (webhook)") || !strings.Contains(page, "told/yearly") ||
		!strings.Contains(page, `class="state state-dead">dead<`) || strings.Contains(page, `class="retry"`) || strings.Contains(page, s.hook.URL) {
		t.Fatalf("the notifications page for a read session: want 6 rows with their Runs, the answer escaped, no URL and no Retry:\n%s", page)
	}
	if zh := get(chinese, "/notifications?lang=zh"); !strings.Contains(zh, "无法送达") || !strings.Contains(zh, "已送达") || !strings.Contains(zh, "最近错误") {
		t.Errorf("the Chinese notifications page does not name the states and columns in Chinese:\n%s", zh)
	}
	if dead := get(reader, "/notifications?state=dead&project=told"); strings.Count(dead, `<tr id="notification-`) != 3 || strings.Contains(dead, "state-delivered") {
		t.Errorf("told's dead notifications: want 3 rows, none delivered:\n%s", dead)
	}
	if other := get(reader, "/notifications?project=shop"); strings.Contains(other, `<tr id="notification-`) || !strings.Contains(other, "Nothing here.") {
		t.Errorf("shop's notifications: want none:\n%s", other)
	}
	if resp, bad := httpcall.Form(t, reader, http.MethodGet, s.base+"/notifications?state=failed", nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(bad, `id="notifications-error"`) || !strings.Contains(bad, "is not one of pending, delivered, dead") {
		t.Errorf("a state that is none: %d, want 400 saying which states there are:\n%s", resp.StatusCode, bad)
	}

	// A page holds 50: 57 dead notifications are two pages.
	s.copyDead(t, 54)
	first := get(reader, "/notifications?state=dead")
	next := regexp.MustCompile(`id="next-page" href="([^"]+)"`).FindStringSubmatch(first)
	if strings.Count(first, `<tr id="notification-`) != 50 || next == nil {
		t.Fatalf("the first page of 57 dead notifications: want 50 rows and a next page:\n%s", first)
	}
	second := get(reader, html.UnescapeString(next[1]))
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`<tr id="notification-([0-9a-f-]{36})"`).FindAllStringSubmatch(first+second, -1) {
		seen[m[1]] = true
	}
	if len(seen) != 57 || strings.Contains(second, `id="next-page"`) || strings.Contains(second, "state-delivered") {
		t.Fatalf("two pages of dead notifications show %d of 57, or the second offers more or leaves the filter:\n%s", len(seen), second)
	}

	op := consoleClient(t)
	csrf := s.signIn(t, op, s.tokens[apitoken.Operate])
	dead := get(op, "/notifications?state=dead&project=told")
	retry := regexp.MustCompile(`<form method="post" action="/notifications/([0-9a-f-]{36})/retry"`).FindAllStringSubmatch(dead, -1)
	if len(retry) != 50 || !strings.Contains(dead, `<input type="hidden" name="state" value="dead">`) {
		t.Fatalf("an operate session's dead notifications: %d Retry forms, want one a row, carrying the filter:\n%s", len(retry), dead)
	}
	id := retry[0][1]
	// Taken when sent again: the retried notification is not dead again
	// by the time the list is read.
	s.accept.Store(true)
	if resp, _ := httpcall.Form(t, op, http.MethodPost, s.base+"/notifications/"+id+"/retry", url.Values{"state": {"dead"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a retry without the CSRF token: %d, want 403", resp.StatusCode)
	}
	resp, _ := httpcall.Form(t, op, http.MethodPost, s.base+"/notifications/"+id+"/retry", url.Values{"csrf": {csrf}, "state": {"dead"}, "project": {"told"}})
	back, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || back.Path != "/notifications" || back.Query().Get("retried") != id ||
		back.Query().Get("state") != "dead" || back.Query().Get("project") != "told" {
		t.Fatalf("retry: %d to %q; want 303 back to the filtered list naming the retried notification", resp.StatusCode, resp.Header.Get("Location"))
	}
	if after := get(op, back.String()); !strings.Contains(after, `id="retried"`) || !strings.Contains(after, "Notification "+id+" is pending again") ||
		strings.Contains(after, `<tr id="notification-`+id+`"`) {
		t.Errorf("the list after the retry does not say so, or still lists the notification as dead:\n%s", after)
	}
	if !strings.Contains(s.log.String(), "code="+notify.CodeRetried+" notification="+id+" actor=console:token:console-operate@127.0.0.1") {
		t.Errorf("the console's retry is not logged with who asked:\n%s", s.log.String())
	}
	// The retry by hand keeps the attempts before it, which the row says
	// with when it was retried and who asked, in either language.
	row := regexp.MustCompile(`(?s)<tr id="notification-` + id + `">.*?</tr>`)
	for client, want := range map[*http.Client][]string{op: {"before a retry by hand at", "retried by console:token:console-operate@127.0.0.1"},
		chinese: {"手动重试之前", "由 console:token:console-operate@127.0.0.1 手动重试"}} {
		got := row.FindString(get(client, "/notifications?project=told"))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("the retried notification's row does not say %q:\n%s", w, got)
			}
		}
	}
}

// copyDead copies the newest dead notification n times, each a dead one of
// its own with an id newer than every notification's.
func (s *toldSite) copyDead(t *testing.T, n int) {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(s.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range n {
		if _, err := db.Exec(`INSERT INTO notification_outbox (id, project_id, run_id, rule_key, subject, event, channel_json, payload_json, state,
				attempts, next_attempt_at_ms, last_error, created_at_ms, updated_at_ms)
			SELECT ?1, project_id, run_id, rule_key, subject || '#' || ?1, event, channel_json, payload_json, state,
				attempts, next_attempt_at_ms, last_error, created_at_ms, updated_at_ms
			  FROM notification_outbox WHERE state = 'dead' ORDER BY id DESC LIMIT 1`, ids.New()); err != nil {
			t.Fatal(err)
		}
	}
}

// A refusal of the notifications page or of a retry — an id or a cursor
// that is none, a notification that does not exist or is not dead, a state
// that is none — reads in Chinese on a Chinese page, naming the state in
// Chinese, with none of the English sentence, and as it always did in
// English.
func TestAConsoleNotificationRefusalIsShownInThePagesLanguage(t *testing.T) {
	t.Parallel()
	s := startToldSite(t, 1)
	c := consoleClient(t)
	csrf := s.signIn(t, c, s.tokens[apitoken.Operate])
	delivered := s.list(t, "?state=delivered").Notifications[0].ID
	for _, r := range []refusal{
		{"a retry of an id that is none", http.MethodPost, "/notifications/not-an-id/retry", nil,
			"give a notification id as printed by", "这不是通知 ID"},
		{"a retry of a notification that does not exist", http.MethodPost, "/notifications/" + ids.New() + "/retry", nil,
			"is deleted once older than --retention-notifications", "该通知不存在"},
		{"a retry of a delivered notification", http.MethodPost, "/notifications/" + delivered + "/retry", nil,
			"only a dead notification can be retried", "该通知现在是“已送达”状态"},
		{"a listing of a state that is none", http.MethodGet, "/notifications?state=failed", nil,
			"is not one of pending, delivered, dead", "通知状态须是"},
		{"a listing after a cursor that is none", http.MethodGet, "/notifications?after=yesterday", nil,
			"give the cursor as the id of the last notification", "翻页位置（after）不是 ID"},
	} {
		r.check(t, s.consoleSite, c, csrf)
	}
}
