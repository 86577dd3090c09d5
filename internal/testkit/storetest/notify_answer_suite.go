package storetest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// testRefusalTextIsRecordedEscaped: what a refusing receiver said is kept
// on the row escaped and cut at a character, so an answer whose read limit
// falls inside a Chinese character, or one carrying NULs and terminal
// escapes, is recorded like any other. PostgreSQL refuses such text: the
// failure was never recorded, and the row, claimed again after each lease,
// was never made dead.
func testRefusalTextIsRecordedEscaped(t *testing.T, f Fixture) {
	// 6 control bytes and 193 others, then a three-byte character: the
	// 200 bytes quoted end inside it.
	answer := "\x00\x1b[31m" + strings.Repeat("x", 193) + "服务暂时不可用"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	m := deliverOnce(t, f, "escaped", notify.Channel{Name: "cn", Kind: notify.Webhook, URL: srv.URL}, notify.DeliveryConfig{})
	if m.State != notify.Pending || m.Attempts != 1 {
		t.Fatalf("notification %s after %d attempts, want pending after its first failed one", m.State, m.Attempts)
	}
	if !utf8.ValidString(m.LastError) || strings.ContainsFunc(m.LastError, unicode.IsControl) ||
		!strings.Contains(m.LastError, `502: "\x00\x1b[31mxxx`) {
		t.Fatalf("reason %q: want the receiver's status and its answer escaped, in UTF-8", m.LastError)
	}
}

// deliverOnce publishes a project whose failures notify channel c, fails
// one Run and runs one delivery round of a deliverer configured by cfg
// (its outbox the fixture's, its backoff the shortest unless cfg gives
// one); it returns the notification as the round left it.
func deliverOnce(t *testing.T, f Fixture, project string, c notify.Channel, cfg notify.DeliveryConfig) notify.Message {
	t.Helper()
	failedWith(t, f, project, notify.Spec{Channels: []notify.Channel{c}, Rules: []notify.Rule{{On: notify.OnFailed, Channel: c.Name}}})
	cfg.Outbox = f.Outbox
	if cfg.BaseBackoff == 0 {
		cfg.BaseBackoff = notify.MinBaseBackoff
	}
	if _, err := notify.NewDeliverer(cfg).Round(t.Context()); err != nil {
		t.Fatalf("round: %v", err)
	}
	ms := outbox(t, f)
	if len(ms) != 1 {
		t.Fatalf("%d notifications, want the one the failed Run owes", len(ms))
	}
	return ms[0]
}
