package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// holdDatabaseLock takes the write lock of dir's database on a connection
// of its own, as another process writing to the file does, until release.
func holdDatabaseLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	lock, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			// Not t.Context(): a release from the cleanup runs after it ended.
			_, _ = lock.ExecContext(context.Background(), "ROLLBACK")
			_ = lock.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// A console page whose write waits for the database's write lock, which
// another process holds, past the request's time limit is answered 504
// with the console's page saying what held it (the lock, the file, how
// long it waited), that nothing was written and what to do, in English and
// in Chinese, well before the server's write timeout would cut the
// connection and leave the browser a dropped one; the API answers the
// same refusal (504, timeout, database_locked).
func TestAConsolePageOutOfTimeSaysSoInsteadOfBeingCutOff(t *testing.T) {
	t.Parallel()
	const limit = 500 * time.Millisecond
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) { c.RequestTimeout = limit })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	release := holdDatabaseLock(t, site.dir)

	db := LayoutOf(site.dir).DB
	to := time.Now().UTC().Format("2006-01-02T15:04")
	// How long the write waited, as the page says it: from its start, just
	// after the request's, until it saw the limit had passed, which a loaded
	// machine sees later; never longer than the request took, and rounded to
	// 0.1 s.
	waited := map[string]*regexp.Regexp{
		"en": regexp.MustCompile(`another process held the write lock of the database file ` + regexp.QuoteMeta(db) + `; this write waited (\S+) for it, all the time it had, so nothing was written`),
		"zh": regexp.MustCompile(`另一个进程持有数据库文件 ` + regexp.QuoteMeta(db) + ` 的写锁；这次写入为此等了 (\S+)，用完了它能等的全部时间`),
	}
	for lang, want := range map[string][]string{
		"en": {"Took too long", "a sqlite3 shell with a transaction open", "try again in a moment, and if it keeps happening, find the process that holds the file"},
		"zh": {"耗时过长", "因此什么也没有写入", "请稍后重试，若反复出现，请找出持有该文件的进程"},
	} {
		start := time.Now()
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill/preview?lang="+lang,
			url.Values{"csrf": {csrf}, "from": {"2021-06-01T00:00"}, "to": {to}})
		took := time.Since(start)
		if resp.StatusCode != http.StatusGatewayTimeout {
			t.Fatalf("%s: a preview held behind the write lock answered %d after %s; want 504 once its %s are up:\n%s", lang, resp.StatusCode, took, limit, page)
		}
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Fatalf("%s: the timeout page lacks %q:\n%s", lang, w, page)
			}
		}
		if took < limit || took > httpserve.MaxHandlerTime {
			t.Fatalf("%s: answered after %s; want just after the request's %s, long before the write timeout", lang, took, limit)
		}
		m := waited[lang].FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: the timeout page does not say the lock of %s held the write, and for how long:\n%s", lang, db, page)
		}
		if d, err := time.ParseDuration(m[1]); err != nil || d <= 0 || d > took+50*time.Millisecond {
			t.Fatalf("%s: the page says the write waited %s; want how long it waited, at most the %s the request took", lang, m[1], took)
		}
	}
	status, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/triggers/"+site.triggerID+"/pause", site.tokens[apitoken.Operate], []byte(`{}`))
	var answer struct {
		Error struct{ Code, Reason, Message string }
	}
	if err := json.Unmarshal(body, &answer); err != nil || status != http.StatusGatewayTimeout || answer.Error.Code != "timeout" ||
		answer.Error.Reason != string(hold.RefusalDatabaseLocked) || !strings.Contains(answer.Error.Message, "another process held the write lock of the database file "+db) {
		t.Fatalf("the API's pause behind the lock: %d %s; want 504 timeout, database_locked, saying so", status, body)
	}
	release()
	// The request's 500 ms are short for a loaded machine: a preview that
	// ran out of them on its own, with no lock held, is asked again.
	var resp *http.Response
	var page string
	for try := 0; try < 20; try++ {
		resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill/preview",
			url.Values{"csrf": {csrf}, "from": {"2021-06-01T00:00"}, "to": {to}})
		if resp.StatusCode != http.StatusGatewayTimeout || strings.Contains(page, "held the write lock") {
			break
		}
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="backfill-confirm"`) {
		t.Fatalf("the preview once the lock is released: %d; want the preview:\n%s", resp.StatusCode, page)
	}
}

// With the server's own time limit for a request (10 s), longer than
// SQLite's busy timeout (5 s), a console write behind another process's
// lock waits the whole limit and gives the same answer as under a shorter
// one: not 503 "locked" once the busy timeout is out, before the limit
// the page promises.
func TestAConsoleWriteBehindAnotherProcesssLockWaitsItsWholeTimeLimit(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	holdDatabaseLock(t, site.dir)
	start := time.Now()
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/disable", url.Values{"csrf": {csrf}})
	took := time.Since(start)
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(page, "another process held the write lock") || !strings.Contains(page, "so nothing was written") {
		t.Fatalf("a disable behind another process's lock: %d after %s; want 504 saying the lock held it:\n%s", resp.StatusCode, took, page)
	}
	if took < httpserve.MaxHandlerTime || took < sqlitestore.DefaultBusyTimeout {
		t.Fatalf("answered after %s; want after the request's whole %s, past the %s busy timeout", took, httpserve.MaxHandlerTime, sqlitestore.DefaultBusyTimeout)
	}
}
