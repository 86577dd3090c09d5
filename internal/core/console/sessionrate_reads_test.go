package console

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/websession"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// sessionReads is the SQLite store a console checks its sessions in,
// counting the reads a session's check makes of it: the session's row
// and its token.
type sessionReads struct {
	*sqlitestore.Store
	n atomic.Int64
}

func (s *sessionReads) SessionByDigest(ctx context.Context, digest []byte) (websession.Session, error) {
	s.n.Add(1)
	return s.Store.SessionByDigest(ctx, digest)
}

func (s *sessionReads) TokenByDigest(ctx context.Context, digest []byte) (apitoken.Token, error) {
	s.n.Add(1)
	return s.Store.TokenByDigest(ctx, digest)
}

// A session past its rate is refused before its session is looked up: a
// burst of 50 requests past the limit reads nothing of the store, the
// session's own requests within it did, and once a second has refilled
// its tries the session is checked and served again.
func TestARequestPastItsSessionsRateIsRefusedWithoutReadingTheStore(t *testing.T) {
	site := newSessionSite(t)
	reads := &sessionReads{Store: site.st}
	site.c = New(Config{Tokens: reads, Sessions: reads, NowMs: site.nowMs.Load})
	cookie := site.signIn(t)
	reads.n.Store(0)
	for i := range SessionBurst {
		if w := site.get(cookie, "/account"); w.Code != http.StatusOK {
			t.Fatalf("request %d of the burst: %d, want the page", i+1, w.Code)
		}
	}
	if reads.n.Load() == 0 {
		t.Fatal("the session's requests within its rate read nothing of the store; the count proves nothing")
	}
	reads.n.Store(0)
	for i := range 50 {
		if w := site.get(cookie, "/account"); w.Code != http.StatusTooManyRequests {
			t.Fatalf("request %d past the rate: %d, want 429", i+1, w.Code)
		}
	}
	if n := reads.n.Load(); n != 0 {
		t.Errorf("50 requests past the session's rate made %d reads of the store; want none", n)
	}
	site.nowMs.Add(1000)
	if w := site.get(cookie, "/account"); w.Code != http.StatusOK || reads.n.Load() == 0 {
		t.Errorf("a second later: %d after %d reads; want the page, its session checked in the store", w.Code, reads.n.Load())
	}
}
