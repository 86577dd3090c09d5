package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// storeOutage is a real token store whose lookups fail as a database
// that is down makes them (down), or wait on it until the request's
// context ends (hung: a dead pool), when asked to.
type storeOutage struct {
	apitoken.Authenticator
	down, hung atomic.Bool
	// unbounded is set by a hung lookup that had no deadline.
	unbounded atomic.Bool
}

func (s *storeOutage) TokenByDigest(ctx context.Context, digest []byte) (apitoken.Token, error) {
	switch {
	case s.hung.Load():
		deadline, ok := ctx.Deadline()
		if !ok || time.Until(deadline) > metricsTokenWait {
			s.unbounded.Store(true)
			return apitoken.Token{}, qlerror.New(qlerror.Unavailable, "the lookup was given no bound")
		}
		<-ctx.Done()
		return apitoken.Token{}, qlerror.Wrap(qlerror.Unavailable, ctx.Err(), "read the token")
	case s.down.Load():
		return apitoken.Token{}, qlerror.New(qlerror.Unavailable, "the database is down")
	}
	return s.Authenticator.TokenByDigest(ctx, digest)
}

// A scrape of /metrics whose token the store cannot check (its database
// down, or its pool hung past metricsTokenWait) is served to a token the
// store last found valid, so Prometheus reads the server as up and not
// ready rather than as down; a token it never found valid, and every
// other route, still get the store's error.
func TestAScrapeIsServedToATokenLastFoundValidWhileTheStoreCannotCheckIt(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	store := &storeOutage{Authenticator: st}
	var ready atomic.Bool
	ready.Store(true)
	f := fakeReaders{}
	scraped := 0
	h := NewHandler(Config{Runs: f, Triggers: f, Detail: f, Tokens: store,
		Ready: func() (bool, string) {
			if ready.Load() {
				return true, ""
			}
			return false, "database_unavailable"
		},
		Log:     slog.New(slog.DiscardHandler),
		Metrics: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { scraped++ })})
	scraper := tokens[apitoken.Read]
	if p := send(t, h, "GET", "/metrics", "localhost", scraper, ""); p.status != 200 || scraped != 1 {
		t.Fatalf("a scrape while the store answers: %d %s %q", p.status, p.code, p.message)
	}
	ready.Store(false)
	store.down.Store(true)
	if p := send(t, h, "GET", "/metrics", "localhost", scraper, ""); p.status != 200 || scraped != 2 {
		t.Fatalf("a scrape while the store is down: %d %s %q; want the metrics served to the token it last found valid", p.status, p.code, p.message)
	}
	if p := send(t, h, "GET", "/metrics", "localhost", tokens[apitoken.Operate], ""); p.status == 200 || scraped != 2 {
		t.Errorf("a scrape with a token never checked, while the store is down: %d %s; want it refused", p.status, p.code)
	}
	store.down.Store(false)
	store.hung.Store(true)
	if p := send(t, h, "GET", "/metrics", "localhost", scraper, ""); p.status != 200 || scraped != 3 || store.unbounded.Load() {
		t.Fatalf("a scrape while the store's pool hangs: %d %s %q (lookup unbounded: %t); want the metrics served after a bounded wait",
			p.status, p.code, p.message, store.unbounded.Load())
	}
	store.hung.Store(false)
	store.down.Store(true)
	ready.Store(true)
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", scraper, ""); p.status != 503 {
		t.Errorf("a Run listing while the store cannot check its token: %d %s; want the store's 503, no token taken on trust", p.status, p.code)
	}
}
