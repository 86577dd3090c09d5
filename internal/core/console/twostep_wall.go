package console

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/account"
)

// openBehindWall are the routes a user kept at the two-step wall may use:
// the account page, the set-up's steps and sign-out. Whatever else they
// ask, a password alone (perhaps someone else's, found) does nothing.
var openBehindWall = map[string]bool{
	"/account":                  true,
	"/account/two-step/begin":   true,
	"/account/two-step/qr.png":  true,
	"/account/two-step/confirm": true,
	"/signout":                  true,
}

// walled keeps a user who signed in with a password and has no two-step
// on at its set-up while every user must have it, answering the request
// itself (true): a page is sent to the account page, which says why, and
// a form is refused with two_step_required. The store answers at each
// request, so a requirement set on any replica holds from the next page
// on. A token's session is never walled: a token is no password. A store
// that cannot answer refuses, as a session it cannot check. The request
// it returns says whether the user is at the wall (atWall), so the page
// it gets shows no links the wall would send back: on the wall's own
// routes a store that cannot answer leaves the header whole, as each of
// its links asks again.
func (c *Console) walled(ctx context.Context, w http.ResponseWriter, r *http.Request, s *session, rt route) (*http.Request, bool) {
	if s.userID == "" || c.cfg.TwoStep == nil {
		return r, false
	}
	walled, err := c.cfg.TwoStep.TwoStepWalled(ctx, s.userID)
	// Asked once: an error page the request meets later reads the answer
	// rather than ask again (wallAsked).
	r = withWall(r, err == nil && walled)
	if openBehindWall[rt.pattern] {
		return r, false
	}
	if err != nil {
		c.cfg.Log.Warn("console: reading whether two-step sign-in is required", "code", CodeTwoStepStoreFailed, "err", err)
		c.failWith(w, r, s, http.StatusServiceUnavailable, tr(lang(r), "err.sessioncheck"))
		return r, true
	}
	if !walled {
		return r, false
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		http.Redirect(w, r, "/account#two-step", http.StatusSeeOther)
		return r, true
	}
	c.fail(w, r, s, account.ErrTwoStepRequired())
	return r, true
}

// wallAsked is r marked with whether s is kept at the wall, asked now
// where the request has not passed the wall's check: an error page met
// before it (a method the address does not take, a scope, a form's size
// or its CSRF value refused) shows the header the wall's own pages show,
// not links that would only lead back to the account page. A store that
// cannot answer leaves the header whole, as on the wall's own routes.
func (c *Console) wallAsked(r *http.Request, s *session) *http.Request {
	if s == nil || s.userID == "" || c.cfg.TwoStep == nil {
		return r
	}
	if _, asked := r.Context().Value(wallKey{}).(bool); asked {
		return r
	}
	ctx, cancel := context.WithTimeout(r.Context(), c.cfg.RequestTimeout)
	defer cancel()
	walled, err := c.cfg.TwoStep.TwoStepWalled(ctx, s.userID)
	if err != nil {
		c.cfg.Log.Warn("console: reading whether two-step sign-in is required", "code", CodeTwoStepStoreFailed, "err", err)
	}
	return withWall(r, err == nil && walled)
}

// wallKey holds, in a request's context, whether its user is kept at the
// two-step wall, once the store was asked.
type wallKey struct{}

// withWall is r saying whether its user is kept at the wall.
func withWall(r *http.Request, at bool) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), wallKey{}, at))
}

// atWall reports whether the request's user is kept at the two-step wall:
// its page's header offers only the account page and sign-out, and its
// language and colour switches lead to the account page.
func atWall(ctx context.Context) bool {
	at, _ := ctx.Value(wallKey{}).(bool)
	return at
}

// twoStepRequireForm requires two-step sign-in of every user, or stops
// requiring it: an owner's form on the account page, audited by the
// store. An owner without two-step of their own may not require it
// (two_step_required_own_first): they set theirs up on the same page
// first, so the owner demanding it has shown it works, and is never
// walled by their own click.
func (c *Console) twoStepRequireForm(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.twoStepUser(w, r, s) {
		return
	}
	l := lang(r)
	refuse := func(err error) {
		c.renderAccount(w, r, s, statusOf(err), func(d *twoStepData) { d.RequireError = c.formError(l, err) })
	}
	var on bool
	switch r.PostFormValue("required") {
	case "on":
		on = true
	case "off":
	default:
		c.failWith(w, r, s, http.StatusBadRequest, tr(l, "err.requiredvalue"))
		return
	}
	if on {
		ts, err := c.cfg.TwoStep.TwoStepOf(r.Context(), s.userID)
		if err == nil && !ts.On {
			err = account.ErrTwoStepRequiredOwnFirst()
		}
		if err != nil {
			refuse(err)
			return
		}
	}
	if _, err := c.cfg.TwoStep.TwoStepRequire(r.Context(), on, s.actor(r)); err != nil {
		refuse(err)
		return
	}
	http.Redirect(w, r, "/account#two-step-everyone", http.StatusSeeOther)
}
