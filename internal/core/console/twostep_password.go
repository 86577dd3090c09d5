package console

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// currentPasswordFault checks the signed-in user's current password
// before two-step sign-in is turned on, as a password change does:
// whoever sits at an unattended browser may not tie the account to a
// phone of theirs. Throttled as a sign-in with that name from this
// address is, and logged when wrong; "" when it is right, else the
// page's message with its status (and Retry-After set).
func (c *Console) currentPasswordFault(w http.ResponseWriter, r *http.Request, s *session, current string) (int, string) {
	l := lang(r)
	addr := remoteHost(r)
	throttled := func() (int, string) {
		c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: s.name, Reason: authlog.ReasonThrottled})
		w.Header().Set("Retry-After", retryThrottled)
		return http.StatusTooManyRequests, tr(l, "err.throttled")
	}
	if !c.throttle.allowed(addr, s.name) {
		return throttled()
	}
	if !c.slots.acquire(r.Context()) {
		w.Header().Set("Retry-After", "5")
		return http.StatusServiceUnavailable, tr(l, "err.busy")
	}
	defer c.slots.release()
	try, ok := c.throttle.reserve(addr, s.name)
	if !ok {
		return throttled()
	}
	u, hash, err := c.cfg.Users.UserCredentials(r.Context(), s.name)
	if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
		try.settle(false)
		c.cfg.Log.Warn("console two-step sign-in: user store", "code", CodeSigninStoreFailed, "err", err)
		return http.StatusServiceUnavailable, tr(l, "err.userstore")
	}
	// The name's account must still be the session's: one deleted and
	// made again under the same name is another person's.
	ok = c.verify(hash, current, err == nil && u.ID == s.userID)
	try.settle(!ok)
	if !ok {
		c.authLog.Failed(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: s.name, Reason: authlog.ReasonCurrentPasswordWrong})
		return http.StatusUnauthorized, tr(l, "err.pwcurrent")
	}
	return 0, ""
}
