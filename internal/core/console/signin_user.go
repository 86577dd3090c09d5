package console

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// signinUser checks a user's password and starts a session. An unknown
// name, a wrong password and a disabled account get the same answer after
// the same work (one Argon2id verification), so the answer does not tell
// which names exist. A sign-in that finds no free check slot is refused
// before the name is looked up, so that refusal tells nothing either.
func (c *Console) signinUser(w http.ResponseWriter, r *http.Request, name, addr string) {
	l := lang(r)
	password := r.PostFormValue("password")
	if c.cfg.Users == nil {
		c.renderSignin(w, r, tr(l, "err.nousers"), http.StatusUnauthorized)
		return
	}
	if !c.slots.acquire(r.Context()) {
		w.Header().Set("Retry-After", "5")
		c.renderSignin(w, r, tr(l, "err.busy"), http.StatusServiceUnavailable)
		return
	}
	defer c.slots.release()
	// The throttle was checked before the wait for a slot, when other
	// sign-ins for the same address or name may have been on their way
	// too: this takes the try itself, so tries at once cannot pass a limit
	// that had one left. It is taken before the lookup, so a refusal here
	// is the same for every name.
	try, ok := c.throttle.reserve(addr, name)
	if !ok {
		c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Reason: authlog.ReasonThrottled})
		w.Header().Set("Retry-After", retryThrottled)
		c.renderSignin(w, r, tr(l, "err.throttled"), http.StatusTooManyRequests)
		return
	}
	u, hash, err := c.cfg.Users.UserCredentials(r.Context(), name)
	if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
		try.settle(false)
		c.cfg.Log.Warn("console sign-in: user store", "code", CodeSigninStoreFailed, "err", err)
		c.renderSignin(w, r, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	found := err == nil
	matches := c.verify(hash, password, found)
	ok = matches && u.State() == account.StateActive
	try.settle(!ok)
	if !ok {
		c.authLog.Failed(signinFailure(addr, u.Name, found, matches))
		c.renderSignin(w, r, tr(l, "err.badlogin"), http.StatusUnauthorized)
		return
	}
	if c.cfg.TwoStep != nil {
		// A user with two-step on gets no session yet: the second step
		// (signin_twostep.go) starts it once a code is right.
		ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), u.ID)
		if err != nil {
			c.cfg.Log.Warn("console sign-in: reading the two-step secret", "code", CodeTwoStepStoreFailed, "err", err)
			c.renderSignin(w, r, tr(l, "err.userstore"), http.StatusServiceUnavailable)
			return
		}
		if ts.On {
			c.startTwoStep(w, r, u, account.PasswordStamp(hash))
			return
		}
	}
	c.signedIn(w, r, u, account.PasswordStamp(hash), addr, authlog.ReasonPassword)
}

// signedIn records a user's sign-in (reason says how it was checked),
// starts its session with the stamp of the password checked and sends
// the browser on.
func (c *Console) signedIn(w http.ResponseWriter, r *http.Request, u account.User, stamp, addr, reason string) {
	if err := c.cfg.Users.UserSignedIn(r.Context(), u.ID, c.cfg.NowMs()); err != nil {
		c.cfg.Log.Warn("console sign-in: recording the sign-in", "code", CodeSigninRecordFailed, "err", err) // informational; the sign-in stands
	}
	c.throttle.signedIn(addr, u.Name)
	c.authLog.SignedIn(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: u.Name, Reason: reason})
	if err := c.start(r.Context(), w, &session{userID: u.ID, stamp: stamp, name: u.Name, scope: u.Role.Scope()}); err != nil {
		c.startFailed(w, r, err)
		return
	}
	http.Redirect(w, r, afterSignin(r), http.StatusSeeOther)
}

// signinFailure is the log's account of a failed password sign-in: an
// unknown name is not logged (it may be a password typed in the wrong
// field), a known one is, with whether the password or the account's
// state refused it.
func signinFailure(addr, name string, found, matches bool) authlog.Event {
	e := authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: name, Reason: authlog.ReasonUserDisabled}
	switch {
	case !found:
		e.Name, e.Reason = "", authlog.ReasonUserUnknown
	case !matches:
		e.Reason = authlog.ReasonPasswordWrong
	}
	return e
}

// verifyPassword checks password against a found user's hash, or spends
// the same work on a dummy hash when no user was found.
func verifyPassword(hash, password string, found bool) bool {
	if !found {
		account.VerifyAbsent(password)
		return false
	}
	return account.VerifyPassword(hash, password)
}

// Sign-in throttling. Each address may fail signinBurst times at once,
// then one more time a minute, as with the API's tokens. Failures for one
// user name are counted per address too (signinPairBurst, then one a
// minute), so a stranger's failures slow the stranger, never the owner
// signing in from elsewhere. What keeps guessing one name from many
// addresses slow is a loose ceiling per name: signinNameBurst failures,
// refilled at signinNameEvery, from wherever they come. Strangers can
// fill that ceiling on purpose, so it does not apply from an address the
// name signed in from within knownFor: the owner, back at a known place,
// is held only to the address's and the pair's limits.
// retryThrottled is the Retry-After of a throttled sign-in, the API's for
// a throttled address: a try comes back within signinEvery.
const retryThrottled = "60"

const (
	signinBurst     = 10
	signinPairBurst = 5
	signinEvery     = time.Minute
	signinNameBurst = 100
	signinNameEvery = time.Minute / signinNameBurst
	// maxThrottled bounds each set of limits (a full set forgets the
	// clients it throttles least, authlimit.Keyed) and the known pairs (a
	// full set forgets the pair that signed in longest ago).
	maxThrottled = 10_000
	knownFor     = 30 * 24 * time.Hour
)

// throttle holds the sign-in limits; a password check in progress holds
// a try of each limit it counts against (authlimit), so the limits hold
// however many checks run at once.
type throttle struct {
	now                    func() time.Time
	byAddr, byPair, byName *authlimit.Keyed
	tries                  authlimit.Tries
	fails, refusals        atomic.Uint64
	// known holds when each (name, address) pair last signed in.
	knownMu sync.Mutex
	known   map[string]time.Time
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{now: now,
		byAddr: authlimit.NewKeyed(rate.Every(signinEvery), signinBurst, maxThrottled),
		byPair: authlimit.NewKeyed(rate.Every(signinEvery), signinPairBurst, maxThrottled),
		byName: authlimit.NewKeyed(rate.Every(signinNameEvery), signinNameBurst, maxThrottled),
		known:  map[string]time.Time{}}
}

// limits are the ones a sign-in from addr, for the user name when given,
// counts against: the name's ceiling only from an address the name has
// not signed in from lately. A pair keys a name with an address; an
// address holds no NUL, so the key's last NUL parts them whatever the
// name holds.
func (t *throttle) limits(addr, name string) []authlimit.Key {
	client := authlimit.Client(addr)
	ks := []authlimit.Key{t.byAddr.Key(client)}
	if name != "" {
		pair := name + "\x00" + client
		ks = append(ks, t.byPair.Key(pair))
		if !t.isKnown(pair) {
			ks = append(ks, t.byName.Key(name))
		}
	}
	return ks
}

// isKnown reports whether the pair signed in within knownFor.
func (t *throttle) isKnown(pair string) bool {
	t.knownMu.Lock()
	defer t.knownMu.Unlock()
	at, ok := t.known[pair]
	return ok && t.now().Sub(at) < knownFor
}

// signedIn records that name signed in from addr. A full set first drops
// the pairs older than knownFor or, when none is, the oldest one: the
// pair it forgets falls back under the name's ceiling, nothing more.
func (t *throttle) signedIn(addr, name string) {
	now := t.now()
	pair := name + "\x00" + authlimit.Client(addr)
	t.knownMu.Lock()
	defer t.knownMu.Unlock()
	if _, ok := t.known[pair]; !ok && len(t.known) >= maxThrottled {
		oldest, oldestAt := "", now
		for k, at := range t.known {
			if now.Sub(at) >= knownFor {
				delete(t.known, k)
			} else if !at.After(oldestAt) {
				oldest, oldestAt = k, at
			}
		}
		if len(t.known) >= maxThrottled {
			delete(t.known, oldest)
		}
	}
	t.known[pair] = now
}

// allowed reports whether a sign-in from addr (for the user name, when
// given) may be tried now, counting a refusal.
func (t *throttle) allowed(addr, name string) bool {
	ok := t.tries.Open(t.now(), t.limits(addr, name)...)
	if !ok {
		t.refusals.Add(1)
	}
	return ok
}

// failed spends one of the address's failures and, for a user name, one
// of the name's from that address and, unless the name signed in from
// there lately, one of the name's ceiling.
func (t *throttle) failed(addr, name string) {
	t.fails.Add(1)
	t.tries.Spend(t.now(), t.limits(addr, name)...)
}

// try is a sign-in's reserved try; settle ends it once.
type try struct {
	t *throttle
	authlimit.Try
}

// reserve takes a try from addr (and the user name, when given) for a
// check about to run, or reports false, counting a refusal, when one of
// the limits has none left.
func (t *throttle) reserve(addr, name string) (try, bool) {
	held, ok := t.tries.Reserve(t.now(), t.limits(addr, name)...)
	if !ok {
		t.refusals.Add(1)
	}
	return try{t: t, Try: held}, ok
}

// settle ends the try, spending it as a failure when failed and giving
// it back otherwise.
func (r try) settle(failed bool) {
	if failed {
		r.t.fails.Add(1)
	}
	r.Settle(r.t.now(), failed)
}

// AuthStats are the console's failed and throttled sign-ins, and those
// refused because too many were being checked at once, since it started;
// the API adds them to its own counters.
func (c *Console) AuthStats() (failures, throttled, busy uint64) {
	return c.throttle.fails.Load(), c.throttle.refusals.Load(), c.slots.busy.Load()
}
