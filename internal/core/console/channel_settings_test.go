package console

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// channelsSite is a console whose project shop defines a webhook channel
// ops (answering 200, its token a secret) and an email channel mail, with
// rules sending to both, its tests recorded in record (the site's store
// when nil).
func channelsSite(t *testing.T, record func(*batchSite) audit.Appender) *batchSite {
	t.Helper()
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(ok.Close)
	secrets := filepath.Join(t.TempDir(), "qinglong-secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"hook_token": "tok-abcdefgh"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	site := newBatchSite(t, func(cfg *Config) {
		cfg.Notifications = listedOutbox{}
		cfg.TryChannel = notify.NewDeliverer(notify.DeliveryConfig{Secrets: process.Secrets{Path: secrets}.Resolve}).Try
	})
	// The store is the site's own: the record is set once it is made,
	// before any request.
	site.c.cfg.ChannelTests = site.st
	if record != nil {
		site.c.cfg.ChannelTests = record(site)
	}
	d, err := site.st.ProjectDefinitions(t.Context(), "shop", 0)
	if err != nil {
		t.Fatal(err)
	}
	d.Project.Notifications = notify.Spec{
		Channels: []notify.Channel{
			{Name: "ops", Kind: notify.Webhook, URL: ok.URL, TokenSecret: "hook_token", Language: notify.Chinese, TimeZone: "Asia/Shanghai"},
			{Name: "mail", Kind: notify.Email, Host: "smtp.example.com", From: "ql@example.com", To: []string{"ops@example.com"}, Username: "ql", PasswordSecret: "smtp_password"},
		},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: "ops"}, {On: notify.OnRecovered, Channel: "ops"}, {On: notify.OnFailed, Channel: "mail"}},
	}.Encode()
	if _, err := site.st.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatal(err)
	}
	return site
}

// The Notifications page shows each channel's settings, read-only, in
// the page's language: its kind, its target with each secret by its name,
// the events its rules send, its language and its time zone.
func TestTheNotificationsPageShowsEachChannelsSettingsWithItsSecretsByName(t *testing.T) {
	t.Parallel()
	site := channelsSite(t, nil)
	for l, want := range map[string][]string{
		"en": {"webhook", "token <secret hook_token>", "failed, recovered", "Chinese", "Asia/Shanghai",
			"email", "smtp smtp.example.com:587 (starttls), from ql@example.com, to ops@example.com, user ql, password <secret smtp_password>", "English", "UTC (as the payload holds them)"},
		"zh": {"失败、已恢复", "中文", "英文", "时区", "<secret smtp_password>"},
	} {
		page := html.UnescapeString(site.do(apitoken.Operate, "/notifications?project=shop&lang="+l, nil).Body.String())
		settings := page[strings.Index(page, `id="channel-settings"`):]
		for _, w := range want {
			if !strings.Contains(settings, w) {
				t.Errorf("the channels' settings (%s) lack %q:\n%s", l, w, settings)
			}
		}
	}
}

// A test from the console is recorded in the audit trail with the
// session that sent it; a record the trail cannot take is said beside the
// outcome, which it does not hide.
func TestATestFromTheConsoleIsRecordedAndAFailedRecordIsSaidBesideItsOutcome(t *testing.T) {
	t.Parallel()
	site := channelsSite(t, nil)
	said := html.UnescapeString(site.do(apitoken.Operate, "/projects/shop/notifications/channels/ops/test", url.Values{}).Body.String())
	if !strings.Contains(said, "Test message to channel ops delivered: the receiver answered 200.") || strings.Contains(said, "could not record") {
		t.Fatalf("the page after Send test to ops:\n%s", said)
	}
	page, err := site.st.AuditList(t.Context(), audit.Query{Action: audit.ChannelTested, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 1 || page.Records[0].ObjectName != "ops" || page.Records[0].Project != "shop" || page.Records[0].Note != "delivered, HTTP 200" || page.Records[0].Actor == "unknown" {
		t.Fatalf("the trail's channel tests %+v; want ops of shop, delivered, HTTP 200, with who sent it", page.Records)
	}

	broken := channelsSite(t, func(*batchSite) audit.Appender {
		closed := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "other.db"), func() int64 { return time.Now().UnixMilli() })
		if err := closed.Close(); err != nil {
			t.Fatal(err)
		}
		return closed
	})
	for l, want := range map[string][]string{
		"en": {"Test message to channel ops delivered: the receiver answered 200.", "The audit trail could not record this test"},
		"zh": {"测试消息已送达渠道 ops：接收方回应 200。", "审计记录没有写入这次测试"},
	} {
		said := html.UnescapeString(broken.do(apitoken.Operate, "/projects/shop/notifications/channels/ops/test?lang="+l, url.Values{}).Body.String())
		for _, w := range want {
			if !strings.Contains(said, w) {
				t.Errorf("the page (%s) after a test whose record failed lacks %q:\n%s", l, w, said)
			}
		}
	}
}
