package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// sessionSite is a console on a stored database whose clock the test
// moves (nowMs, the store's), with one read token to sign in with: what
// a test of a session's life needs.
type sessionSite struct {
	st     *sqlitestore.Store
	path   string
	nowMs  *atomic.Int64
	secret string
	c      *Console
}

// newSessionSite opens the store at a fixed time and creates the token;
// serve puts a console on it.
func newSessionSite(t *testing.T) *sessionSite {
	t.Helper()
	var nowMs atomic.Int64
	nowMs.Store(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli())
	path := filepath.Join(t.TempDir(), "ql.db")
	st := sqlitetest.OpenAt(t, path, nowMs.Load)
	secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "web", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &sessionSite{st: st, path: path, nowMs: &nowMs, secret: secret}
}

// serve is the site with a console of cfg, whose tokens and sessions are
// the store's and whose clock, unless cfg sets one, is the store's.
func (s *sessionSite) serve(cfg Config) *sessionSite {
	cfg.Tokens, cfg.Sessions = s.st, s.st
	if cfg.NowMs == nil {
		cfg.NowMs = s.nowMs.Load
	}
	s.c = New(cfg)
	return s
}

// signIn returns a new session's cookie.
func (s *sessionSite) signIn(t *testing.T) string {
	t.Helper()
	w := tokenSignin(s.c, s.secret, "192.0.2.1")
	for _, ck := range w.Result().Cookies() {
		if ck.Name == sessionCookie && w.Code == http.StatusSeeOther {
			return ck.Value
		}
	}
	t.Fatalf("sign-in: %d without a session cookie", w.Code)
	return ""
}

// get asks for path with the session of cookie ("" for none).
func (s *sessionSite) get(cookie, path string) *httptest.ResponseRecorder {
	return s.getWith(context.Background(), cookie, path)
}

// getWith is get whose request ends with ctx.
func (s *sessionSite) getWith(ctx context.Context, cookie, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	}
	w := httptest.NewRecorder()
	s.c.ServeHTTP(w, r)
	return w
}
