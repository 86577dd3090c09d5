package console

import (
	"net/http"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/websession"
)

// A console whose clock is off from its store's (a replica's from the
// database's) judges nothing of a session by it: the store's clock sets
// the expiry at sign-in, says when a last use is due, and ends the session
// at that expiry, neither before nor after.
func TestAConsoleWhoseClockIsOffJudgesItsSessionsOnTheStoresClock(t *testing.T) {
	for name, off := range map[string]time.Duration{"ahead": 10 * time.Minute, "behind": -10 * time.Minute} {
		t.Run(name, func(t *testing.T) {
			site := newSessionSite(t)
			storeMs := site.nowMs
			const ttl = time.Hour
			site.serve(Config{SessionTTL: ttl, NowMs: func() int64 { return storeMs.Load() + off.Milliseconds() }})
			signedIn := storeMs.Load()
			cookie := site.signIn(t)
			row, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie))
			if err != nil || row.ExpiresAtMs != signedIn+ttl.Milliseconds() {
				t.Fatalf("the stored session expires at %d (%v); want the store's sign-in %d and %v", row.ExpiresAtMs, err, signedIn, ttl)
			}
			account := func() int { return site.get(cookie, "/account").Code }
			// Two minutes on, a use is due on the store's clock.
			storeMs.Add((2 * time.Minute).Milliseconds())
			if code := account(); code != http.StatusOK {
				t.Fatalf("two minutes after sign-in: %d, want the page", code)
			}
			if row, err := site.st.SessionByDigest(t.Context(), websession.Digest(cookie)); err != nil || row.LastSeenAtMs != storeMs.Load() {
				t.Fatalf("last use %d (%v); want the use two minutes on, %d", row.LastSeenAtMs, err, storeMs.Load())
			}
			// A moment before its expiry on the store's clock it is live,
			// and at it, ended.
			storeMs.Store(signedIn + ttl.Milliseconds() - 1)
			if code := account(); code != http.StatusOK {
				t.Fatalf("a moment before the store's expiry: %d, want the page", code)
			}
			storeMs.Add(1)
			if code := account(); code != http.StatusSeeOther {
				t.Fatalf("at the store's expiry: %d, want sent to sign in", code)
			}
		})
	}
}
