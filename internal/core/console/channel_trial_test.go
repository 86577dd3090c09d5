package console

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// The Notifications page of a chosen project offers an operate session
// Send test for each of its channels, in the page's language; the button
// sends the test message, and the page it returns to says the receiver's
// status, or why it was not delivered with what the receiver said.
func TestTheNotificationsPageSendsATestMessageAndSaysHowItWent(t *testing.T) {
	t.Parallel()
	events := make(chan string, 1)
	ok := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { events <- r.Header.Get(notify.HeaderEvent) }))
	defer ok.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "no such hook")
	}))
	defer down.Close()
	site := newBatchSite(t, func(cfg *Config) {
		cfg.Notifications = listedOutbox{}
		cfg.TryChannel = notify.NewDeliverer(notify.DeliveryConfig{}).Try
	})
	d, err := site.st.ProjectDefinitions(t.Context(), "shop", 0)
	if err != nil {
		t.Fatal(err)
	}
	d.Project.Notifications = notify.Spec{Channels: []notify.Channel{{Name: "ops", Kind: notify.Webhook, URL: ok.URL}, {Name: "gone", Kind: notify.Webhook, URL: down.URL}}}.Encode()
	if _, err := site.st.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(site.do(apitoken.Operate, "/notifications?project=shop&lang=zh", nil).Body.String())
	for _, want := range []string{"本项目的渠道", `action="/projects/shop/notifications/channels/ops/test"`, `action="/projects/shop/notifications/channels/gone/test"`, "发送测试"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the Notifications page of shop lacks %q:\n%s", want, page)
		}
	}
	if read := site.do(apitoken.Read, "/notifications?project=shop", nil).Body.String(); strings.Contains(read, "Send test") {
		t.Errorf("a read session is offered Send test, which needs operate")
	}
	said := html.UnescapeString(site.do(apitoken.Operate, "/projects/shop/notifications/channels/ops/test", url.Values{}).Body.String())
	if !strings.Contains(said, "Test message to channel ops delivered: the receiver answered 200.") {
		t.Fatalf("the page after Send test to ops does not say it was delivered:\n%s", said)
	}
	if e := <-events; e != string(notify.OnTest) {
		t.Fatalf("the receiver got event %q; want a test message", e)
	}
	said = html.UnescapeString(site.do(apitoken.Operate, "/projects/shop/notifications/channels/gone/test?lang=zh", url.Values{}).Body.String())
	if !strings.Contains(said, "测试消息未送达渠道 gone") || !strings.Contains(said, "404") || !strings.Contains(said, "no such hook") {
		t.Fatalf("the page after Send test to gone does not say why it was not delivered:\n%s", said)
	}
}
