package console

import (
	"context"
	"image/png"
	"net/http"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// CodeTwoStepStoreFailed is the log line of a two-step secret the store
// could not read or write; never the secret or a code.
const CodeTwoStepStoreFailed = "console.two_step_store_failed"

// twoStepData is the account page's two-step section.
type twoStepData struct {
	// Offered: the server keeps two-step secrets and the session is a
	// user's.
	Offered, On, Waiting bool
	// URI is the waiting secret's otpauth:// URI, for an app that takes
	// it typed or pasted rather than scanned.
	URI string
	// RecoveryLeft counts the unused recovery codes of a two-step on.
	RecoveryLeft int
	// Codes are the recovery codes of a two-step just turned on: shown
	// this once, never again.
	Codes []string
	// Error is a refused code or change; Unread says the store could not
	// be read.
	Error  string
	Unread bool
	// Required says every user must have two-step on, Walled that this
	// user has not and may do nothing else yet (twostep_wall.go).
	Required, Walled bool
	// Owner offers the form that requires it of every user, and
	// RequireError is that form's refusal.
	Owner        bool
	RequireError string
}

// twoStepOf reads the section of the session's user.
func (c *Console) twoStepOf(ctx context.Context, s *session) twoStepData {
	if c.cfg.TwoStep == nil || s.userID == "" {
		return twoStepData{}
	}
	ts, err := c.cfg.TwoStep.TwoStepOf(ctx, s.userID)
	if err != nil {
		c.cfg.Log.Warn("console: reading a user's two-step sign-in", "code", CodeTwoStepStoreFailed, "err", err)
		return twoStepData{Offered: true, Unread: true}
	}
	required, err := c.cfg.TwoStep.TwoStepRequired(ctx)
	if err != nil {
		c.cfg.Log.Warn("console: reading whether two-step sign-in is required", "code", CodeTwoStepStoreFailed, "err", err)
		return twoStepData{Offered: true, Unread: true}
	}
	d := twoStepData{Offered: true, On: ts.On, Waiting: ts.Secret != "" && !ts.On, RecoveryLeft: ts.RecoveryLeft,
		Required: required, Walled: required && !ts.On, Owner: s.scope == apitoken.Admin}
	if d.Waiting {
		if k, err := account.TwoStepKey(s.name, ts.Secret); err == nil {
			d.URI = k.String()
		}
	}
	return d
}

// renderAccount shows the account page with its two-step section as
// changed by fix (nil: as stored).
func (c *Console) renderAccount(w http.ResponseWriter, r *http.Request, s *session, status int, fix func(*twoStepData)) {
	d := c.accountData(s)
	d.TwoStep = c.twoStepOf(r.Context(), s)
	if fix != nil {
		fix(&d.TwoStep)
	}
	c.render(w, r, status, "account", s, d)
}

// twoStepUser refuses the two-step routes to a token's session and
// where the server keeps no secrets.
func (c *Console) twoStepUser(w http.ResponseWriter, r *http.Request, s *session) bool {
	if s.userID == "" || c.cfg.TwoStep == nil || c.cfg.Users == nil {
		c.failWith(w, r, s, http.StatusForbidden, tr(lang(r), "err.twosteptoken"))
		return false
	}
	return true
}

// twoStepBegin draws a new secret, waiting for its first code; the
// account page shows it until it is confirmed.
func (c *Console) twoStepBegin(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.twoStepUser(w, r, s) {
		return
	}
	secret, err := account.NewTwoStepSecret(s.name)
	if err == nil {
		err = c.cfg.TwoStep.TwoStepBegin(r.Context(), s.userID, secret)
	}
	if err != nil {
		c.renderAccount(w, r, s, twoStepStatus(err), func(d *twoStepData) { d.Error = c.formError(lang(r), err) })
		return
	}
	http.Redirect(w, r, "/account#two-step", http.StatusSeeOther)
}

// twoStepQR is the waiting secret's QR code; never cached.
func (c *Console) twoStepQR(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.twoStepUser(w, r, s) {
		return
	}
	ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), s.userID)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if ts.Secret == "" || ts.On {
		http.NotFound(w, r)
		return
	}
	k, err := account.TwoStepKey(s.name, ts.Secret)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	img, err := k.Image(qrSize, qrSize)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	_ = png.Encode(w, img) // a client gone away is no failure of ours
}

// qrSize is the QR code's side in pixels: big enough for a phone's camera
// at arm's length.
const qrSize = 240

// twoStepConfirm turns the waiting secret on with a current code of it
// and the user's current password (currentPasswordFault), and shows the
// recovery codes this once. The user's other sessions end:
// they were signed in without a code.
func (c *Console) twoStepConfirm(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.twoStepUser(w, r, s) {
		return
	}
	l := lang(r)
	refuse := func(err error) {
		c.renderAccount(w, r, s, twoStepStatus(err), func(d *twoStepData) { d.Error = c.formError(l, err) })
	}
	ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), s.userID)
	if err != nil {
		refuse(err)
		return
	}
	if ts.On {
		refuse(account.ErrTwoStepOn())
		return
	}
	if ts.Secret == "" {
		refuse(account.ErrTwoStepNotBegun())
		return
	}
	step, ok := account.MatchTwoStepCode(ts.Secret, r.PostFormValue("code"), time.UnixMilli(c.cfg.NowMs()))
	if !ok {
		refuse(account.ErrTwoStepCodeWrong())
		return
	}
	if _, status, msg := c.currentPasswordFault(w, r, s, r.PostFormValue("current"), checkForTwoStepOn); msg != "" {
		c.renderAccount(w, r, s, status, func(d *twoStepData) { d.Error = msg })
		return
	}
	codes, digests := account.NewRecoveryCodes()
	if err := c.cfg.TwoStep.TwoStepConfirm(r.Context(), s.userID, s.name, s.actor(r), ts.Secret, step, digests); err != nil {
		refuse(err)
		return
	}
	if err := c.endOthers(r.Context(), s); err != nil {
		c.cfg.Log.Warn("console: ending a user's other sessions", "code", CodeSessionStoreFailed, "err", err)
	}
	c.renderAccount(w, r, s, http.StatusOK, func(d *twoStepData) { d.Codes = codes })
}

// twoStepOff turns two-step off with a current code or a recovery code,
// which counts against the sign-in limits as a password change's current
// password does, through the same reserveCheck: whoever sits at an
// unattended browser may not guess it. While every user must have it, it
// is refused (two_step_required_stays_on): an owner's reset is the way
// to a new phone.
func (c *Console) twoStepOff(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.twoStepUser(w, r, s) {
		return
	}
	l := lang(r)
	refuse := func(status int, msg string) {
		c.renderAccount(w, r, s, status, func(d *twoStepData) { d.Error = msg })
	}
	// Required of everyone, it stays on: asked before the code, which is
	// then not spent.
	if required, err := c.cfg.TwoStep.TwoStepRequired(r.Context()); err != nil || required {
		if err == nil {
			err = account.ErrTwoStepRequiredStaysOn()
		}
		refuse(statusOf(err), c.formError(l, err))
		return
	}
	addr := remoteHost(r)
	try, release, status, msg := c.reserveCheck(w, r, s.name)
	if msg != "" {
		refuse(status, msg)
		return
	}
	defer release()
	ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), s.userID)
	if err != nil {
		try.settle(false)
		refuse(twoStepStatus(err), c.formError(l, err))
		return
	}
	if !ts.On {
		try.settle(false)
		err := account.ErrTwoStepOff()
		refuse(twoStepStatus(err), c.formError(l, err))
		return
	}
	_, err = c.checkTwoStepCode(r.Context(), s.userID, s.name, s.actor(r), ts, r.PostFormValue("code"))
	try.settle(isCodeRefusal(err))
	if err == nil {
		err = c.cfg.TwoStep.TwoStepOff(r.Context(), s.userID, s.name, s.actor(r))
	}
	if err != nil {
		if isCodeRefusal(err) {
			c.authLog.Failed(authlog.Event{Surface: authlog.SurfaceConsole, Addr: addr, Name: s.name, Reason: codeFailure(err)})
		}
		refuse(twoStepStatus(err), c.formError(l, err))
		return
	}
	http.Redirect(w, r, "/account?"+twoStepOffParam+"#two-step", http.StatusSeeOther)
}

// twoStepOffParam marks the account page turning two-step off sends the
// browser to, which says it is off.
const twoStepOffParam = "twostepoff"

// checkTwoStepCode accepts code, spending it: a six-digit code of the
// secret within a step of now whose step no code was accepted for, or
// else an unused recovery code (recovery true, audited under actor). A
// refusal is ErrTwoStepCodeWrong or ErrTwoStepCodeReused.
func (c *Console) checkTwoStepCode(ctx context.Context, userID, name, actor string, ts account.TwoStep, code string) (recovery bool, err error) {
	if account.IsTwoStepCodeShape(code) {
		step, ok := account.MatchTwoStepCode(ts.Secret, code, time.UnixMilli(c.cfg.NowMs()))
		if !ok {
			return false, account.ErrTwoStepCodeWrong()
		}
		used, err := c.cfg.TwoStep.TwoStepUseStep(ctx, userID, step)
		if err != nil {
			return false, err
		}
		if !used {
			return false, account.ErrTwoStepCodeReused()
		}
		return false, nil
	}
	if strings.TrimSpace(code) == "" {
		return false, account.ErrTwoStepCodeWrong()
	}
	used, err := c.cfg.TwoStep.TwoStepUseRecovery(ctx, userID, name, actor, account.RecoveryDigest(code))
	if err != nil {
		return false, err
	}
	if !used {
		return false, account.ErrTwoStepCodeWrong()
	}
	return true, nil
}

// isCodeRefusal reports whether err refuses a code (wrong or used), not
// a store's failure.
func isCodeRefusal(err error) bool {
	switch qlerror.ReasonOf(err) {
	case account.RefusalTwoStepCodeWrong, account.RefusalTwoStepCodeReused:
		return true
	}
	return false
}

// twoStepStatus is err's status, 401 for a code refused.
func twoStepStatus(err error) int {
	if isCodeRefusal(err) {
		return http.StatusUnauthorized
	}
	return statusOf(err)
}

// codeFailure is the log's reason of a code refused.
func codeFailure(err error) string {
	if qlerror.ReasonOf(err) == account.RefusalTwoStepCodeReused {
		return authlog.ReasonTwoStepCodeReused
	}
	return authlog.ReasonTwoStepCodeWrong
}
