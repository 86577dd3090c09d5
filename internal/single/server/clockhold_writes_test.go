package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// clockSite is a console site whose clock reads the wall clock plus an
// offset the test sets: set back thirty days, the server's next round
// finds its clock behind the database and holds.
type clockSite struct {
	*consoleSite
	offset atomic.Int64
	rounds atomic.Int64
	logs   syncbuf.Buffer
}

// startClockSite starts a console site on a clock the test can set back,
// with the server's settings changed by each of configure.
func startClockSite(t *testing.T, configure ...func(*Config)) *clockSite {
	t.Helper()
	c := &clockSite{}
	c.consoleSite = startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript, func(cfg *Config) {
		cfg.NowMs = func() int64 { return time.Now().UnixMilli() + c.offset.Load() }
		cfg.Logger = slog.New(slog.NewTextHandler(&c.logs, nil))
		cfg.OnRound = func(schedule.Summary) { c.rounds.Add(1) }
		for _, f := range configure {
			f(cfg)
		}
	})
	return c
}

// setBack sets the clock thirty days back and waits until /readyz says the
// server holds for it. It waits first for a whole round by the right
// clock: the first one writes the trigger's next fire time, which a clock
// set back during that round would date.
func (c *clockSite) setBack(t *testing.T) {
	t.Helper()
	from := c.rounds.Load()
	waitFor(t, "a whole scheduler round by the right clock", 10*time.Second, func() bool { return c.rounds.Load() >= from+2 })
	c.offset.Store(-thirtyDaysMs)
	c.waitReady(t, http.StatusServiceUnavailable, metrics.StateClockBehindDatabase)
}

// catchUp sets the clock right again, as NTP does, and waits until the
// server is ready.
func (c *clockSite) catchUp(t *testing.T) {
	t.Helper()
	c.offset.Store(0)
	c.waitReady(t, http.StatusOK, "")
}

// refusedForTheClock checks that an API answer is the refusal of a write
// while the clock reads thirty days behind the database: 503 with the
// reason, a Retry-After, and a message saying by how much and what to do.
func refusedForTheClock(t *testing.T, what string, status int, body []byte, header http.Header) {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%s: answered %d %s, not an API error: %v", what, status, body, err)
	}
	if status != http.StatusServiceUnavailable || e.Error.Code != qlerror.Unavailable || e.Error.Reason != hold.RefusalClockBehindDatabase {
		t.Errorf("%s while the clock reads behind the database: %d %s; want 503 %s with the reason %s", what, status, body, qlerror.Unavailable, hold.RefusalClockBehindDatabase)
	}
	if s, err := strconv.Atoi(header.Get("Retry-After")); err != nil || s < 1 || s > 30 {
		t.Errorf("%s: Retry-After %q; want 1 to 30 seconds", what, header.Get("Retry-After"))
	}
	for _, said := range []string{"its clock reads 30d0h behind the newest time its database recorded", "check that NTP reaches a time server", "--clock-wait 0"} {
		if !strings.Contains(e.Error.Message, said) {
			t.Errorf("%s: the refusal does not say %q: %q", what, said, e.Error.Message)
		}
	}
}

// TestWhileTheClockReadsBehindTheDatabaseTheAPIRefusesWritesAndAnswersReads:
// while the clock reads behind the database, a run now, an apply, a
// pause and a channel's test over the API are refused with 503, the reason
// clock_behind_database, a Retry-After and a message saying how far behind
// and what to do, and write nothing; reads are answered, their token's use
// not recorded. Once the clock
// caught up, the same requests succeed, as first asked.
func TestWhileTheClockReadsBehindTheDatabaseTheAPIRefusesWritesAndAnswersReads(t *testing.T) {
	t.Parallel()
	site := startClockSite(t)
	trig := site.base + "/api/v1/triggers/" + site.triggerID
	runNow := []byte(`{"requestId":"` + ids.New() + `"}`)
	operate, admin := site.tokens[apitoken.Operate], site.tokens[apitoken.Admin]
	site.setBack(t)

	st, body, h := httpcall.Bearer(t, http.MethodPost, trig+"/run", operate, runNow)
	refusedForTheClock(t, "run now", st, body, h)
	st, body, h = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", admin, []byte(movedFile))
	refusedForTheClock(t, "apply", st, body, h)
	st, body, h = httpcall.Bearer(t, http.MethodPost, trig+"/pause", operate, nil)
	refusedForTheClock(t, "pause", st, body, h)
	// A channel's test records who sent it, dated by the clock, and a
	// server holding for its clock sends no notification either.
	st, body, h = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/projects/shop/notifications/channels/ops/test", operate, nil)
	refusedForTheClock(t, "a channel's test", st, body, h)
	if st, body, _ := httpcall.Bearer(t, http.MethodGet, trig, site.tokens[apitoken.Read], nil); st != http.StatusOK {
		t.Errorf("a trigger read while the clock reads behind the database: %d %s; want 200", st, body)
	}
	// The read token's first use: its time would be the clock's.
	if n := count(t, observer(t, site.dir), `SELECT count(*) FROM api_tokens WHERE last_used_at_ms IS NOT NULL AND scope = 'read'`); n != 0 {
		t.Errorf("the read token's use was recorded while the clock reads behind the database")
	}

	site.catchUp(t)
	heldWritesTakeEffect(t, site.base, trig, runNow, operate, admin, "once the clock caught up")
}

// TestWhileTheClockReadsBehindTheDatabaseTheConsoleRefusesWritesAndEveryPageSaysSo:
// while the clock reads behind the database, every console page says,
// above what it shows and in English or Chinese, that the server takes no
// writes, how far behind the clock reads and what to do; a run now, a
// channel's test and a sign-in are refused (503, with a Retry-After) in the page's language.
// Once the clock caught up, no page says it and the run now runs.
func TestWhileTheClockReadsBehindTheDatabaseTheConsoleRefusesWritesAndEveryPageSaysSo(t *testing.T) {
	t.Parallel()
	site := startClockSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	pages := []string{"/", "/triggers", "/triggers/" + site.triggerID, "/runs"}
	const banner = `id="held"`
	said := map[string]string{"en": "its clock reads 30d0h behind the newest time its database recorded", "zh": "它的时钟比数据库记录的最新时间落后 30d0h"}
	site.setBack(t)

	for _, l := range []string{"en", "zh"} {
		for _, path := range pages {
			resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path+"?lang="+l, nil)
			if resp.StatusCode != http.StatusOK || !strings.Contains(page, banner) || !strings.Contains(page, said[l]) || !strings.Contains(page, "--clock-wait 0") {
				t.Errorf("%s (%s) while the clock reads behind the database: %d, want 200 with the banner saying %q and --clock-wait 0:\n%s", path, l, resp.StatusCode, said[l], page)
			}
		}
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run?lang="+l, url.Values{"csrf": {csrf}})
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(page, said[l]) {
			t.Errorf("run now (%s) while the clock reads behind the database: %d, Retry-After %q; want 503 with one, saying %q:\n%s", l, resp.StatusCode, resp.Header.Get("Retry-After"), said[l], page)
		}
		if l == "zh" && strings.Contains(page, said["en"]) {
			t.Errorf("the Chinese refusal still says the English sentence:\n%s", page)
		}
		if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/projects/shop/notifications/channels/ops/test?lang="+l, url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, said[l]) {
			t.Errorf("a channel's test (%s) while the clock reads behind the database: %d; want 503 saying %q:\n%s", l, resp.StatusCode, said[l], page)
		}
	}
	// A sign-in records its session by the clock: refused too.
	fresh := consoleClient(t)
	signin, _ := site.signinForm(t, fresh)
	if resp, page := httpcall.Form(t, fresh, http.MethodPost, site.base+"/signin", url.Values{"csrf": {signin}, "token": {site.tokens[apitoken.Read]}}); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, said["en"]) {
		t.Errorf("a sign-in while the clock reads behind the database: %d; want 503 saying %q:\n%s", resp.StatusCode, said["en"], page)
	}

	site.catchUp(t)
	for _, path := range pages {
		if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil); resp.StatusCode != http.StatusOK || strings.Contains(page, banner) {
			t.Errorf("%s once the clock caught up: %d, want 200 without the banner:\n%s", path, resp.StatusCode, page)
		}
	}
	site.cancel(t, c, csrf, site.runNow(t, c, csrf))
}

// TestAQueuedRunIsNotStartedWhileTheClockReadsBehindTheDatabase: a Run
// queued while the clock reads behind the database (by a command on the
// data directory, or left by the last server) is not started — its start
// would be dated before the events that queued it — and the warning says
// so; it starts once the clock caught up.
func TestAQueuedRunIsNotStartedWhileTheClockReadsBehindTheDatabase(t *testing.T) {
	t.Parallel()
	c := startClocked(t, func(first int64) int64 { return first - thirtyDaysMs }, DefaultClockWait)
	if !strings.Contains(c.logs.String(), "no queued Run started") || !strings.Contains(c.logs.String(), "no notification is sent") {
		t.Errorf("the %s warning does not say that queued Runs wait and notifications are not sent:\n%s", CodeClockBehindDatabase, c.logs.String())
	}
	res, err := c.srv.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: c.trigger, RequestID: ids.New(), Actor: "test"})
	if err != nil || res.RunID == "" {
		t.Fatalf("run now: %+v, %v", res, err)
	}
	// Nothing happens to await: the guarantee is that the dispatcher's
	// rounds within this wait (the cadence is 250ms) start nothing.
	for range 8 {
		c.srv.disp.Wake()
		time.Sleep(250 * time.Millisecond)
	}
	if n := count(t, c.db, `SELECT count(*) FROM attempts WHERE run_id = ? AND state <> 'claimed'`, res.RunID); n != 0 {
		t.Fatalf("%d attempts of the queued Run started while the clock reads behind the database; want none", n)
	}

	c.now.Store(c.first + 2_000)
	waitFor(t, "the queued Run to run once the clock caught up", 30*time.Second, func() bool {
		return c.runs(t, `id = ? AND state = 'succeeded'`, res.RunID) == 1
	})
}

// TestANotificationDueWhileTheClockReadsBehindTheDatabaseIsSentOnceItCatchesUp:
// a notification its receiver refused, still pending when the server
// stopped, is due from its creation after a restart; a restart with the
// clock behind the newest time the database recorded but past that
// creation (a reboot before NTP set the clock, the notification older than
// where the clock starts) does not send it while the hold lasts — its
// delivery would be recorded by that clock — and sends it once the clock
// caught up.
func TestANotificationDueWhileTheClockReadsBehindTheDatabaseIsSentOnceItCatchesUp(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	refuse.Store(true)
	var sent atomic.Int32
	got := make(chan struct{}, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if refuse.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		sent.Add(1)
		got <- struct{}{}
	}))
	t.Cleanup(hook.Close)
	site := startClockSite(t, func(cfg *Config) { cfg.NotifyBackoff = time.Hour })
	db := observer(t, site.dir)
	release := filepath.Join(t.TempDir(), "fail-now")
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", site.tokens[apitoken.Admin],
		fmt.Appendf(nil, notifyFile, hook.URL, release)); st != http.StatusOK {
		t.Fatalf("apply: %d %s", st, body)
	}
	var triggerID string
	if err := db.QueryRow(`SELECT t.id FROM triggers t JOIN projects p ON p.id = t.project_id WHERE p.name = 'told'`).Scan(&triggerID); err != nil {
		t.Fatal(err)
	}
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/triggers/"+triggerID+"/run", site.tokens[apitoken.Operate], []byte(`{"requestId":"`+ids.New()+`"}`)); st != http.StatusOK {
		t.Fatalf("run now: %d %s", st, body)
	}
	waitFor(t, "the Run's failure notification to be refused once", 10*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM notification_outbox WHERE state = 'pending' AND attempts = 1`) == 1
	})
	// Two hours later the database records a Run: the newest time the
	// restart's clock then reads behind, though past the notification.
	site.offset.Store(2 * time.Hour.Milliseconds())
	site.runNowOverAPI(t, site.triggerID)
	if err := site.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	refuse.Store(false)

	var offset atomic.Int64
	offset.Store(time.Hour.Milliseconds())
	srv, err := Start(t.Context(), Config{DataDir: site.dir, NowMs: func() int64 { return time.Now().UnixMilli() + offset.Load() },
		Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	if !srv.clockHold.holding() {
		t.Fatal("the server restarted with its clock an hour behind the database does not hold")
	}
	// Nothing happens to await: the guarantee is that the rounds within
	// this wait (the cadence is 250ms) send nothing.
	for range 8 {
		srv.notify.Wake()
		time.Sleep(250 * time.Millisecond)
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d notifications sent while the clock reads behind the database; want none until it caught up", n)
	}

	offset.Store(3 * time.Hour.Milliseconds())
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification sent within 10s of the clock catching up")
	}
}
