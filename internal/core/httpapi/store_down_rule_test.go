package httpapi

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// Whether a route is served to a token the store last found valid while
// the store cannot check it is its route table entry's rule, not its
// path's: a route marked lastKnown at any path is served so, after a
// bounded lookup when the store's pool hangs, and /metrics marked
// checkedOnly answers the store's error like any other route.
func TestARoutesRuleForATokenTheStoreCannotCheckIsItsTableEntrysNotItsPath(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	store := &storeOutage{Authenticator: st}
	served := 0
	ok := func(a *api) http.HandlerFunc { return func(http.ResponseWriter, *http.Request) { served++ } }
	h := newHandler(Config{Tokens: store, Log: slog.New(slog.DiscardHandler), Ready: func() (bool, string) { return true, "" }}, []route{
		{http.MethodGet, "/api/v1/trusted", apitoken.Read, everyProject, evenUnready, lastKnown, unconditional, "read trusted", ok},
		{http.MethodGet, metricsPath, apitoken.Read, everyProject, evenUnready, checkedOnly, unconditional, "read the metrics", ok},
	})
	token := tokens[apitoken.Read]
	for _, path := range []string{"/api/v1/trusted", metricsPath} {
		if p := send(t, h, "GET", path, "localhost", token, ""); p.status != 200 {
			t.Fatalf("GET %s while the store answers: %d %s %q", path, p.status, p.code, p.message)
		}
	}
	store.down.Store(true)
	if p := send(t, h, "GET", "/api/v1/trusted", "localhost", token, ""); p.status != 200 || served != 3 {
		t.Errorf("a route marked lastKnown while the store is down: %d %s %q; want it served to the token the store last found valid", p.status, p.code, p.message)
	}
	if p := send(t, h, "GET", metricsPath, "localhost", token, ""); p.status != 503 || served != 3 {
		t.Errorf("/metrics marked checkedOnly while the store is down: %d %s; want the store's 503, whatever its path", p.status, p.code)
	}
	store.down.Store(false)
	store.hung.Store(true)
	if p := send(t, h, "GET", "/api/v1/trusted", "localhost", token, ""); p.status != 200 || served != 4 || store.unbounded.Load() {
		t.Errorf("a route marked lastKnown while the store's pool hangs: %d %s (lookup unbounded: %t); want it served after a bounded wait",
			p.status, p.code, store.unbounded.Load())
	}
}
