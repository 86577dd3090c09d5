package console

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// signinUser checks a user's password and starts a session. An unknown
// name, a wrong password and a disabled account get the same answer after
// the same work (one Argon2id verification), so the answer does not tell
// which names exist.
func (c *Console) signinUser(w http.ResponseWriter, r *http.Request, name, addr string) {
	l := lang(r)
	password := r.PostFormValue("password")
	if c.cfg.Users == nil {
		c.renderSignin(w, r, tr(l, "err.nousers"), http.StatusUnauthorized)
		return
	}
	u, hash, err := c.cfg.Users.UserCredentials(r.Context(), name)
	if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
		c.cfg.Log.Warn("console sign-in: user store", "err", err)
		http.Error(w, "the user store did not answer; try again", http.StatusServiceUnavailable)
		return
	}
	ok := false
	if err != nil {
		account.VerifyAbsent(password)
	} else {
		ok = account.VerifyPassword(hash, password) && u.State() == account.StateActive
	}
	if !ok {
		c.throttle.failed(addr, name)
		c.renderSignin(w, r, tr(l, "err.badlogin"), http.StatusUnauthorized)
		return
	}
	now := c.cfg.NowMs()
	if err := c.cfg.Users.UserSignedIn(r.Context(), u.ID, now); err != nil {
		c.cfg.Log.Warn("console sign-in: recording the sign-in", "err", err) // informational; the sign-in stands
	}
	c.start(w, &session{userID: u.ID, stamp: account.PasswordStamp(hash), name: u.Name, scope: u.Role.Scope()})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// Sign-in throttling, as the API's failed-authentication throttle: each
// address, and each user name, may fail signinBurst times at once, then
// one more time a minute.
const (
	signinBurst = 10
	signinEvery = time.Minute
	// maxThrottled bounds each limiter map; past it the map is cleared,
	// which at worst forgives some clients early.
	maxThrottled = 10_000
)

type throttle struct {
	mu              sync.Mutex
	byAddr, byName  map[string]*rate.Limiter
	fails, refusals atomic.Uint64
}

func newThrottle() *throttle {
	return &throttle{byAddr: map[string]*rate.Limiter{}, byName: map[string]*rate.Limiter{}}
}

func (t *throttle) limiter(m map[string]*rate.Limiter, key string) *rate.Limiter {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := m[key]
	if !ok {
		if len(m) >= maxThrottled {
			clear(m)
		}
		l = rate.NewLimiter(rate.Every(signinEvery), signinBurst)
		m[key] = l
	}
	return l
}

// allowed reports whether a sign-in from addr (for the user name, when
// given) may be tried now, counting a refusal.
func (t *throttle) allowed(addr, name string) bool {
	ok := t.limiter(t.byAddr, addr).Tokens() >= 1 && (name == "" || t.limiter(t.byName, name).Tokens() >= 1)
	if !ok {
		t.refusals.Add(1)
	}
	return ok
}

// failed spends one of the address's (and the name's) failures.
func (t *throttle) failed(addr, name string) {
	t.fails.Add(1)
	t.limiter(t.byAddr, addr).Allow()
	if name != "" {
		t.limiter(t.byName, name).Allow()
	}
}

// AuthStats are the console's failed and throttled sign-ins since it
// started; the API adds them to its own authentication counters.
func (c *Console) AuthStats() (failures, throttled uint64) {
	return c.throttle.fails.Load(), c.throttle.refusals.Load()
}
