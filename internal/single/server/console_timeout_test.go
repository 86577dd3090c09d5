package server

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A console page whose store call is held up past the request's time
// limit (a backfill preview waiting for the database's write lock, which
// another process holds) is answered 504 with the console's page saying it
// took too long and what to do, in English and in Chinese, well before the
// server's write timeout would cut the connection and leave the browser a
// dropped one.
func TestAConsolePageOutOfTimeSaysSoInsteadOfBeingCutOff(t *testing.T) {
	t.Parallel()
	const limit = 500 * time.Millisecond
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, slowScript,
		func(c *Config) { c.RequestTimeout = limit })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])

	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
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
	release := func() {
		_, _ = lock.ExecContext(context.Background(), "ROLLBACK")
		_ = lock.Close()
	}
	defer release()

	to := time.Now().UTC().Format("2006-01-02T15:04")
	for lang, want := range map[string][]string{
		"en": {"Took too long", "This page took longer than 500ms", "its database is busy", "Try again in a moment, or ask for less (a shorter backfill window"},
		"zh": {"耗时过长", "此页面耗时超过 500ms", "其数据库正忙", "请稍后重试，或减少请求的内容（更短的回填时间窗口"},
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
	}
	release()
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/backfill/preview",
		url.Values{"csrf": {csrf}, "from": {"2021-06-01T00:00"}, "to": {to}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="backfill-confirm"`) {
		t.Fatalf("the preview once the lock is released: %d; want the preview:\n%s", resp.StatusCode, page)
	}
}
