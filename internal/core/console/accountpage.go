package console

import (
	"context"
	"fmt"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// CodePasswordChanged is the log line of a user who changed their own
// password in the console: the user's name and the actor, never a
// password or its hash.
const CodePasswordChanged = "console.password_changed"

// setupLink reports whether the sign-in page offers the setup page; a
// store that cannot tell leaves the link out, and the sign-in page stands.
func (c *Console) setupLink(ctx context.Context) bool {
	open, err := c.setupOpen(ctx)
	return err == nil && open
}

// accountData is the account page: who is signed in, and the password
// form for a user.
type accountData struct {
	// Role is the message key of the role the session acts as.
	Name, Role, Error string
	User, CanChange   bool
	Changed           bool
	Min, Max          int
	// TwoStep is the two-step section (twostep.go); TwoStepOff says it
	// was just turned off.
	TwoStep    twoStepData
	TwoStepOff bool
}

func (c *Console) accountData(s *session) accountData {
	return accountData{Name: s.name, Role: roleKey(s.scope), User: s.userID != "", CanChange: c.cfg.Passwords != nil,
		Min: account.MinPassword, Max: account.MaxPassword}
}

func (c *Console) accountPage(w http.ResponseWriter, r *http.Request, s *session) {
	d := c.accountData(s)
	d.Changed = r.URL.Query().Has(changedParam)
	d.TwoStepOff = r.URL.Query().Has(twoStepOffParam)
	d.TwoStep = c.twoStepOf(r.Context(), s)
	c.render(w, r, http.StatusOK, "account", s, d)
}

// changedParam marks the account page a password change sends the
// browser to, which says it is done.
const changedParam = "changed"

// passwordChange sets a signed-in user's own password after checking the
// current one (currentPasswordFault). The store replaces the hash only
// while it is still the one checked, so a password set (or an account
// disabled) in between is never overwritten with one the checked password
// chose. The new hash has a new stamp, so every session of the user ends
// at its next request (stillValid: on every replica, as the stamp is the
// database's); this browser's session is replaced by one of the new
// stamp, so it stays signed in.
func (c *Console) passwordChange(w http.ResponseWriter, r *http.Request, s *session) {
	l := lang(r)
	again := func(status int, msg string) {
		d := c.accountData(s)
		d.Error = msg
		d.TwoStep = c.twoStepOf(r.Context(), s)
		c.render(w, r, status, "account", s, d)
	}
	if s.userID == "" {
		c.failWith(w, r, s, http.StatusForbidden, tr(l, "err.pwtoken"))
		return
	}
	if c.cfg.Passwords == nil || c.cfg.Users == nil {
		c.failWith(w, r, s, http.StatusForbidden, fmt.Sprintf(tr(l, "pw.cli"), s.name))
		return
	}
	current, password := r.PostFormValue("current"), r.PostFormValue("password")
	if msg := newPasswordFault(l, s.name, password, r.PostFormValue("password2")); msg != "" {
		again(http.StatusBadRequest, msg)
		return
	}
	hash, status, msg := c.currentPasswordFault(w, r, s, current, checkForPasswordChange)
	if msg != "" {
		again(status, msg)
		return
	}
	newHash, err := account.HashPassword(password)
	if err == nil {
		err = c.cfg.Passwords.UserChangePassword(r.Context(), s.userID, hash, newHash, s.actor(r))
	}
	if qlerror.CodeOf(err) == qlerror.Conflict {
		again(http.StatusConflict, tr(l, "err.pwchanged"))
		return
	}
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.cfg.Log.Info("console: a user changed their password", "code", CodePasswordChanged, "user", s.name, "actor", s.actor(r))
	// The browser that made the change goes on with a session of the new
	// stamp; the user's other sessions are ended in the store at once (on
	// any replica they would also fail their stamp at the next request).
	c.sessions.remove(s.id)
	ns := &session{userID: s.userID, stamp: account.PasswordStamp(newHash), name: s.name, scope: s.scope}
	if err := c.start(r.Context(), w, ns); err != nil {
		c.cfg.Log.Warn("console: storing a new session", "code", CodeSessionStoreFailed, "err", err)
		c.failWith(w, r, nil, http.StatusServiceUnavailable, tr(l, "err.sessionstart"))
		return
	}
	if err := c.endOthers(r.Context(), ns); err != nil {
		c.cfg.Log.Warn("console: ending a user's other sessions", "code", CodeSessionStoreFailed, "err", err)
	}
	http.Redirect(w, r, "/account?"+changedParam, http.StatusSeeOther)
}

// roleKey is the message key of the role that acts with scope: a user's
// session keeps the scope its role gave it.
func roleKey(scope apitoken.Scope) string {
	for _, r := range account.Roles {
		if r.Scope() == scope {
			return "role." + string(r)
		}
	}
	return ""
}
