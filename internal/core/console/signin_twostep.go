package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"net/http"
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

// A sign-in's second step holds no session: a right password leaves a
// row (account.PendingSteps) keyed by the digest of a random ticket the
// form carries, naming the user, the stamp of the password checked and
// the digest of the browser's sign-in CSRF value, ending twoStepWindow on.
// So the ticket works only in the browser that typed the password, only
// while that password is the account's, until it ends, and once; being
// the database's, it works on any replica and after a restart. Its form is
// checked as the password's is (signinform.go), and the row names the
// sign-in value the password step took, so a cookie of any other value
// does not match it.

// startTwoStep stores the second step of a right password of u and shows
// its form.
func (c *Console) startTwoStep(w http.ResponseWriter, r *http.Request, u account.User, stamp string) {
	v, _ := c.formValue(r, signinCookie) // signin checked it is there
	ticket := randomID()
	p := account.PendingStep{Digest: ticketDigest(ticket), UserID: u.ID, Stamp: stamp, Browser: ticketDigest(v)}
	if err := c.cfg.TwoStep.PendingStepCreate(r.Context(), p, twoStepWindow); err != nil {
		c.cfg.Log.Warn("console sign-in: storing the second step", "code", CodeTwoStepStoreFailed, "err", err)
		c.renderSignin(w, r, tr(lang(r), "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	c.renderTwoStep(w, r, v, ticket, "", http.StatusOK)
}

// ticketDigest is the SHA-256 a second step's row keeps of its ticket,
// and of the browser's sign-in value.
func ticketDigest(v string) []byte {
	sum := sha256.Sum256([]byte(v))
	return sum[:]
}

// renderTwoStep shows the second step: the code's form, with msg.
func (c *Console) renderTwoStep(w http.ResponseWriter, r *http.Request, csrf, ticket, msg string, status int) {
	c.render(w, r, status, "signin", nil, map[string]any{"Step": true, "CSRF": csrf, "Ticket": ticket, "Error": msg,
		"Next": localPage(r.PostFormValue("next")), "Window": int(twoStepWindow.Minutes())})
}

// signinTwoStep checks the second step's code (or recovery code) and
// starts the session, spending the ticket. A wrong or used code counts against the sign-in
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
	if c.crossOrigin.Check(r) != nil {
		c.renderSignin(w, r, tr(l, "err.crossform"), http.StatusForbidden)
		return
	}
	v, err := c.formValue(r, signinCookie)
	if err != nil || !sameSecret(r.PostFormValue("csrf"), v) {
		c.renderSignin(w, r, tr(l, "err.signincsrf"), http.StatusForbidden)
		return
	}
	done, err := hold.Admit(c.cfg.Writes)
	if err != nil {
		retryAfter(w, err)
		c.renderSignin(w, r, c.formError(l, err), statusOf(err))
		return
	}
	defer done()
	if c.cfg.Users == nil || c.cfg.TwoStep == nil {
		c.renderSignin(w, r, tr(l, "err.nousers"), http.StatusUnauthorized)
		return
	}
	ticket := r.PostFormValue("ticket")
	ended := func() {
		c.renderSignin(w, r, fmt.Sprintf(tr(l, "err.twostepended"), int(twoStepWindow.Minutes())), http.StatusUnauthorized)
	}
	p, err := c.cfg.TwoStep.PendingStepOf(r.Context(), ticketDigest(ticket))
	if qlerror.CodeOf(err) == qlerror.NotFound {
		ended()
		return
	}
	if err != nil {
		c.cfg.Log.Warn("console sign-in: reading the second step", "code", CodeTwoStepStoreFailed, "err", err)
		c.renderTwoStep(w, r, v, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	u, err := c.cfg.Users.UserByID(r.Context(), p.UserID)
	if err != nil && qlerror.CodeOf(err) != qlerror.NotFound {
		c.cfg.Log.Warn("console sign-in: user store", "code", CodeSigninStoreFailed, "err", err)
		c.renderTwoStep(w, r, v, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	if err != nil || u.State() != account.StateActive || u.PasswordStamp != p.Stamp || !hmac.Equal(p.Browser, ticketDigest(v)) {
		ended()
		return
	}
	addr := remoteHost(r)
	try, release, status, msg := c.reserveCheck(w, r, u.Name)
	if msg != "" {
		c.renderTwoStep(w, r, v, ticket, msg, status)
		return
	}
	defer release()
	ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), u.ID)
	if err != nil {
		try.settle(false)
		c.cfg.Log.Warn("console sign-in: reading the two-step secret", "code", CodeTwoStepStoreFailed, "err", err)
		c.renderTwoStep(w, r, v, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
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
			c.twoStepRefused(w, r, v, ticket, u.Name, addr, err)
			return
		}
		reason = authlog.ReasonTwoStepCode
		if recovery {
			reason = authlog.ReasonRecoveryCode
		}
	} else {
		try.settle(false)
	}
	// The ticket is spent last, so a refused code keeps it; of two
	// answers at once, on any replicas, one alone starts a session.
	used, err := c.cfg.TwoStep.PendingStepUse(r.Context(), p.Digest)
	if err != nil {
		c.cfg.Log.Warn("console sign-in: using the second step", "code", CodeTwoStepStoreFailed, "err", err)
		c.renderTwoStep(w, r, v, ticket, tr(l, "err.userstore"), http.StatusServiceUnavailable)
		return
	}
	if !used {
		ended()
		return
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
	c.renderTwoStep(w, r, csrf, ticket, c.formError(l, err), http.StatusUnauthorized)
}
