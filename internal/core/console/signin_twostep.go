package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// twoStepWindow is how long after a right password its second step may
// be answered: long enough to find the phone, short enough that a
// browser left at the second step is soon no halfway sign-in.
const twoStepWindow = 5 * time.Minute

// A sign-in's second step holds no session and no row: the password's
// check is carried to it as a ticket in the form, the user's id and the
// ticket's end signed under the process's key together with the
// browser's sign-in CSRF value and the stamp of the password checked.
// So the ticket works only in the browser that typed the password, only
// while that password is the account's, and only until it ends; like the
// sign-in form itself, it is refused by another process (a restart, or
// another replica behind a balancer that does not keep a browser on one).

// twoStepMAC signs a ticket's parts.
func (c *Console) twoStepMAC(csrf, userID string, endMs int64, stamp string) []byte {
	m := hmac.New(sha256.New, c.signinKey)
	fmt.Fprintf(m, "two-step\x00%s\x00%s\x00%d\x00%s", csrf, userID, endMs, stamp)
	return m.Sum(nil)
}

// twoStepTicket is the ticket of a right password of the user.
func (c *Console) twoStepTicket(csrf, userID, stamp string) string {
	end := c.cfg.NowMs() + twoStepWindow.Milliseconds()
	return userID + "." + strconv.FormatInt(end, 10) + "." + base64.RawURLEncoding.EncodeToString(c.twoStepMAC(csrf, userID, end, stamp))
}

// ticketUser reads the user's id from a ticket not yet ended, before its
// signature is checked (which needs the user's stamp, checkTicket).
func (c *Console) ticketUser(ticket string) (userID string, endMs int64, mac []byte, ok bool) {
	parts := strings.Split(ticket, ".")
	if len(parts) != 3 {
		return "", 0, nil, false
	}
	end, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || c.cfg.NowMs() >= end {
		return "", 0, nil, false
	}
	mac, err = base64.RawURLEncoding.DecodeString(parts[2])
	return parts[0], end, mac, err == nil
}

// renderTwoStep shows the second step: the code's form, with msg.
func (c *Console) renderTwoStep(w http.ResponseWriter, r *http.Request, csrf, ticket, msg string, status int) {
	c.render(w, r, status, "signin", nil, map[string]any{"Step": true, "CSRF": csrf, "Ticket": ticket, "Error": msg,
		"Next": localPage(r.PostFormValue("next")), "Window": int(twoStepWindow.Minutes())})
}

// signinTwoStep checks the second step's code (or recovery code) and
// starts the session. A wrong or used code counts against the sign-in
// limits of the address and the user, as a wrong password does, and is
// logged as one; a refusal keeps the ticket, so the user types the code
// again without the password.
func (c *Console) signinTwoStep(w http.ResponseWriter, r *http.Request, _ *session) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	l := lang(r)
	if tooLarge(r) {
		c.renderSignin(w, r, fmt.Sprintf(tr(l, "err.toolarge"), maxForm>>10), http.StatusRequestEntityTooLarge)
		return
	}
	ck, err := r.Cookie(signinCookie)
	if err != nil || !sameSecret(r.PostFormValue("csrf"), ck.Value) || !c.signedSigninValue(ck.Value) {
		c.renderSignin(w, r, tr(l, "err.signincsrf"), http.StatusForbidden)
		return
	}
	done, err := hold.Admit(c.cfg.Writes)
	if err != nil {
		retryAfter(w, err)
		c.renderSignin(w, r, formErrorText(l, err), statusOf(err))
		return
	}
	defer done()
	if c.cfg.Users == nil || c.cfg.TwoStep == nil {
		c.renderSignin(w, r, tr(l, "err.nousers"), http.StatusUnauthorized)
		return
	}
	ticket := r.PostFormValue("ticket")
	userID, end, mac, ok := c.ticketUser(ticket)
	if !ok {
		c.renderSignin(w, r, fmt.Sprintf(tr(l, "err.twostepended"), int(twoStepWindow.Minutes())), http.StatusUnauthorized)
		return
	}
	u, err := c.cfg.Users.UserByID(r.Context(), userID)
	if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
		c.cfg.Log.Warn("console sign-in: user store", "code", CodeSigninStoreFailed, "err", err)
		c.renderTwoStep(w, r, ck.Value, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	if err != nil || u.State() != account.StateActive || !hmac.Equal(mac, c.twoStepMAC(ck.Value, userID, end, u.PasswordStamp)) {
		c.renderSignin(w, r, fmt.Sprintf(tr(l, "err.twostepended"), int(twoStepWindow.Minutes())), http.StatusUnauthorized)
		return
	}
	addr := remoteHost(r)
	try, ok := c.throttle.reserve(addr, u.Name)
	if !ok {
		c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: u.Name, Reason: authlog.ReasonThrottled})
		w.Header().Set("Retry-After", retryThrottled)
		c.renderTwoStep(w, r, ck.Value, ticket, tr(l, "err.throttled"), http.StatusTooManyRequests)
		return
	}
	ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), u.ID)
	if err != nil {
		try.settle(false)
		c.cfg.Log.Warn("console sign-in: reading the two-step secret", "code", CodeTwoStepStoreFailed, "err", err)
		c.renderTwoStep(w, r, ck.Value, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	reason := authlog.ReasonPassword
	if ts.On {
		// Reset meanwhile (ts off), the password checked is all a
		// sign-in asks.
		actor := (&session{userID: u.ID, name: u.Name}).actor(r)
		recovery, err := c.checkTwoStepCode(r.Context(), u.ID, u.Name, actor, ts, r.PostFormValue("code"))
		try.settle(isCodeRefusal(err))
		if err != nil {
			c.twoStepRefused(w, r, ck.Value, ticket, u.Name, addr, err)
			return
		}
		reason = authlog.ReasonTwoStepCode
		if recovery {
			reason = authlog.ReasonRecoveryCode
		}
	} else {
		try.settle(false)
	}
	c.signedIn(w, r, u, u.PasswordStamp, addr, reason)
}

// twoStepRefused answers a second step whose code was refused, or whose
// code the store could not check.
func (c *Console) twoStepRefused(w http.ResponseWriter, r *http.Request, csrf, ticket, name, addr string, err error) {
	l := lang(r)
	if !isCodeRefusal(err) {
		c.cfg.Log.Warn("console sign-in: checking a two-step code", "code", CodeTwoStepStoreFailed, "err", err)
		c.renderTwoStep(w, r, csrf, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	c.authLog.Failed(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: name, Reason: codeFailure(err)})
	c.renderTwoStep(w, r, csrf, ticket, formErrorText(l, err), http.StatusUnauthorized)
}
