package httpapi

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// /metrics answers a valid read token whatever the server's readiness, so
// qinglong_ready reads 0 while the server is not ready instead of going
// stale for want of a scrape; every other route still refuses with 503,
// and /metrics still needs its token.
func TestMetricsAreServedWhileTheServerIsNotReady(t *testing.T) {
	t.Parallel()
	f := fakeReaders{}
	scraped := 0
	h, tokens := notReadyHandler(t, Config{Runs: f, Triggers: f, Detail: f,
		Metrics: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { scraped++ })}, routes)
	if p := send(t, h, "GET", "/metrics", "localhost", tokens[apitoken.Read], ""); p.status != 200 || scraped != 1 {
		t.Fatalf("a scrape of a server not ready: %d %s %q; want the metrics served", p.status, p.code, p.message)
	}
	if p := send(t, h, "GET", "/metrics", "localhost", "", ""); p.status != 401 {
		t.Errorf("a scrape without a token of a server not ready: %d %s; want 401", p.status, p.code)
	}
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", tokens[apitoken.Read], ""); p.status != 503 || p.code != "unavailable" {
		t.Errorf("a Run listing of a server not ready: %d %s; want 503 unavailable", p.status, p.code)
	}
}

// notReadyHandler is the handler of cfg serving table for a server not
// ready (its database unavailable), with a token of each scope.
func notReadyHandler(t *testing.T, cfg Config, table []route) (*Handler, map[apitoken.Scope]string) {
	t.Helper()
	st, tokens := tokenStore(t)
	cfg.Tokens, cfg.Log = st, slog.New(slog.DiscardHandler)
	cfg.Ready = func() (bool, string) { return false, "database_unavailable" }
	return newHandler(cfg, table), tokens
}
