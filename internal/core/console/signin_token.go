package console

import (
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// signinToken signs in with an API token as the API serves one: only
// tokens that fail are throttled, so a valid token signs in even from an
// address that failed too often (every local user's 127.0.0.1, a proxy's
// clients without --trusted-proxies), and one that fails from there is
// refused with 429 without saying why. A token is 32 random bytes: the
// throttle never stood between a guesser and one, and refusing a valid
// one would let one broken client lock out everyone at its address. A
// password can be guessed, so signinUser's throttle refuses before the
// check.
func (c *Console) signinToken(w http.ResponseWriter, r *http.Request, addr string) {
	l := lang(r)
	open := c.throttle.tokenOpen(addr)
	raw := strings.TrimSpace(r.PostFormValue("token"))
	failure, reason := "", ""
	var t apitoken.Token
	if !apitoken.LooksLikeToken(raw) {
		failure, reason = "err.malformed", authlog.ReasonTokenMalformed
	} else {
		var err error
		t, err = c.cfg.Tokens.TokenByDigest(r.Context(), apitoken.Digest(raw))
		if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
			c.cfg.Log.Warn("console sign-in: token store", "code", CodeSigninStoreFailed, "err", err)
			c.renderSignin(w, r, tr(l, "err.tokenstore"), http.StatusServiceUnavailable)
			return
		}
		if reason = tokenFailure(err, t, c.cfg.NowMs()); reason != "" {
			failure = "err.unknown"
		}
	}
	e := authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: t.Name, Reason: reason}
	switch {
	case failure != "" && !open:
		e.Reason = authlog.ReasonThrottled
		c.authLog.Throttled(e)
		c.throttle.refusals.Add(1)
		w.Header().Set("Retry-After", retryThrottled)
		c.renderSignin(w, r, tr(l, "err.throttled"), http.StatusTooManyRequests)
		return
	case failure != "":
		if reason == authlog.ReasonTokenRevoked {
			c.authLog.RevokedUsed(e)
		} else {
			c.authLog.Failed(e)
		}
		c.throttle.failed(addr, "")
		c.renderSignin(w, r, tr(l, failure), http.StatusUnauthorized)
		return
	}
	if t.Bound() {
		// The console's pages and actions do not check a token's projects:
		// signed in, a token bound to one project would see and act on
		// every other.
		c.renderSignin(w, r, tr(l, "err.tokenbound"), http.StatusForbidden)
		return
	}
	c.cfg.Uses.Record(r.Context(), t.ID, c.cfg.NowMs())
	e.Reason = authlog.ReasonToken
	c.authLog.SignedIn(e)
	if err := c.start(r.Context(), w, &session{digest: apitoken.Digest(raw), name: t.Name, scope: t.Scope}); err != nil {
		c.startFailed(w, r, err)
		return
	}
	http.Redirect(w, r, afterSignin(r), http.StatusSeeOther)
}

// tokenFailure is why a token found (or not, err NotFound) does not sign
// in, for the log; "" when it does.
func tokenFailure(err error, t apitoken.Token, nowMs int64) string {
	if err != nil {
		return authlog.ReasonTokenUnknown
	}
	switch t.StateAt(nowMs) {
	case apitoken.StateRevoked:
		return authlog.ReasonTokenRevoked
	case apitoken.StateExpired:
		return authlog.ReasonTokenExpired
	}
	return ""
}

// tokenOpen reports whether addr may fail a token sign-in now; when it
// may not, a token that fails is refused (signinToken), and only that is
// counted as a refusal.
func (t *throttle) tokenOpen(addr string) bool {
	return t.tries.Open(t.now(), t.limits(addr, "")...)
}
