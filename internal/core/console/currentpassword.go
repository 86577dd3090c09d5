package console

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// passwordCheck is what the signed-in user's current password is checked
// for: the log line and the page's message key of a store that did not
// answer.
type passwordCheck struct{ storeLog, storeMsg string }

var (
	// checkForPasswordChange: the password itself is being changed.
	checkForPasswordChange = passwordCheck{storeLog: "console password change: user store", storeMsg: "err.pwstore"}
	// checkForTwoStepOn: whoever sits at an unattended browser may not tie
	// the account to a phone of theirs.
	checkForTwoStepOn = passwordCheck{storeLog: "console two-step sign-in: user store", storeMsg: "err.userstore"}
)

// currentPasswordFault checks the signed-in user's current password,
// throttled as a sign-in with that name from this address is, and logged
// when wrong. It returns the account's password hash checked, which a
// change may replace only while it is still the stored one; msg is ""
// when the password is right, else the page's message with its status
// (and Retry-After set).
func (c *Console) currentPasswordFault(w http.ResponseWriter, r *http.Request, s *session, current string, check passwordCheck) (hash string, status int, msg string) {
	l := lang(r)
	addr := remoteHost(r)
	try, release, status, msg := c.reserveCheck(w, r, s.name)
	if msg != "" {
		return "", status, msg
	}
	defer release()
	u, hash, err := c.cfg.Users.UserCredentials(r.Context(), s.name)
	if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
		try.settle(false)
		c.cfg.Log.Warn(check.storeLog, "code", CodeSigninStoreFailed, "err", err)
		return "", http.StatusServiceUnavailable, tr(l, check.storeMsg)
	}
	// The name's account must still be the session's: one deleted and
	// made again under the same name is another person's.
	ok := c.verify(hash, current, err == nil && u.ID == s.userID)
	try.settle(!ok)
	if !ok {
		c.authLog.Failed(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: s.name, Reason: authlog.ReasonCurrentPasswordWrong})
		return "", http.StatusUnauthorized, tr(l, "err.pwcurrent")
	}
	return hash, 0, ""
}

// reserveCheck takes what a check of a secret of the user name (a
// password, a two-step code) holds while it runs, from the request's
// address: a try of the sign-in limits (refused at once when one of them
// has none left, before waiting for anything) and a check slot. msg is
// "" when both were taken (release gives the slot back; the caller
// settles the try), else the page's message with its status, Retry-After
// set and a refused try logged. Every check of a signed-in user's or a
// second step's secret goes through it, so none is throttled otherwise.
func (c *Console) reserveCheck(w http.ResponseWriter, r *http.Request, name string) (t try, release func(), status int, msg string) {
	l := lang(r)
	addr := remoteHost(r)
	throttled := func() (try, func(), int, string) {
		c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: name, Reason: authlog.ReasonThrottled})
		w.Header().Set("Retry-After", retryThrottled)
		return try{}, nil, http.StatusTooManyRequests, tr(l, "err.throttled")
	}
	if !c.throttle.allowed(addr, name) {
		return throttled()
	}
	if !c.slots.acquire(r.Context()) {
		w.Header().Set("Retry-After", "5")
		return try{}, nil, http.StatusServiceUnavailable, tr(l, "err.busy")
	}
	t, ok := c.throttle.reserve(addr, name)
	if !ok {
		c.slots.release()
		return throttled()
	}
	return t, c.slots.release, 0, ""
}
