package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// CodeSetupCode is the log line that shows the first owner's setup code,
// once, where the server starts without an account; CodeFirstOwnerCreated
// the line of the owner created with it (its name and address, never the
// code or the password); CodeFirstOwnerFailed a creation the store did not
// take.
const (
	CodeSetupCode         = "console.setup_code"
	CodeFirstOwnerCreated = "console.first_owner_created"
	CodeFirstOwnerFailed  = "console.first_owner_failed"
)

// setupCookie holds the setup form's CSRF value, a double-submit one as
// the sign-in form's (signinform.go); its path keeps it to the setup page
// where the cookies are not Secure.
const setupCookie = "ql_setup"

// Wrong setup codes are throttled per address as wrong sign-ins are: a
// few at once, then one a minute. The code's 128 bits make guessing
// hopeless anyway; the limit keeps a flood of guesses from costing the
// server anything but the refusals.
const (
	setupBurst = signinBurst
	setupEvery = signinEvery
)

// setupThrottle counts the wrong setup codes of each address.
type setupThrottle struct {
	byAddr *authlimit.Keyed
	tries  authlimit.Tries
}

func newSetupThrottle() *setupThrottle {
	return &setupThrottle{byAddr: authlimit.NewKeyed(rate.Every(setupEvery), setupBurst, maxThrottled)}
}

// setupOpen reports whether the first owner may still be created: the
// server drew a code that is not spent, and no account exists. Once one
// does, the code is closed for good, even if every account is deleted
// later (`ql users create` is the way then).
func (c *Console) setupOpen(ctx context.Context) (bool, error) {
	if c.cfg.Setup == nil || c.cfg.FirstOwner == nil || !c.cfg.Setup.Open() {
		return false, nil
	}
	exist, err := c.cfg.FirstOwner.UsersExist(ctx)
	if err != nil {
		return false, err
	}
	if exist {
		c.cfg.Setup.Close()
	}
	return !exist, nil
}

// setupData is the setup page's form.
type setupData struct {
	CSRF, User, Error, LogCode string
	Min, Max                   int
	// Cluster: the binary serving it (ql) may serve a cluster replica,
	// whose setup code is kept elsewhere; ql-edge never does.
	Cluster bool
	// Gap is what stands between two sentences in the page's language.
	Gap string
}

// sentenceGap is what stands between two sentences in language l: a
// space, none after a Chinese full stop.
func sentenceGap(l string) string {
	if l == "zh" {
		return ""
	}
	return " "
}

func (c *Console) setupPage(w http.ResponseWriter, r *http.Request, _ *session) {
	if !c.setupGate(w, r) {
		return
	}
	c.renderSetup(w, r, "", http.StatusOK)
}

// setupGate answers a request to the setup page once there is nothing to
// set up (404, saying to sign in) or the store cannot tell (503), and
// reports whether the page is open.
func (c *Console) setupGate(w http.ResponseWriter, r *http.Request) bool {
	if c.cfg.Setup == nil || c.cfg.FirstOwner == nil {
		msg := fmt.Sprintf(tr(lang(r), "err.nosetuphere"), c.cfg.DatabaseFlags)
		if c.cfg.Binary == "ql" {
			msg += sentenceGap(lang(r)) + tr(lang(r), "err.nosetupcluster")
		}
		c.failWith(w, r, nil, http.StatusNotFound, msg)
		return false
	}
	open, err := c.setupOpen(r.Context())
	if err != nil {
		c.cfg.Log.Warn("console setup: user store", "code", CodeSigninStoreFailed, "err", err)
		c.failWith(w, r, nil, http.StatusServiceUnavailable, tr(lang(r), "err.userstore"))
		return false
	}
	if !open {
		c.failWith(w, r, nil, http.StatusNotFound, tr(lang(r), "err.nosetup"))
	}
	return open
}

func (c *Console) renderSetup(w http.ResponseWriter, r *http.Request, msg string, status int) {
	v, err := c.formValue(r, setupCookie)
	if err != nil || v == "" {
		v = randomID()
		http.SetCookie(w, c.formCookie(setupCookie, v, "/setup"))
	}
	user := ""
	if r.Method == http.MethodPost {
		user = strings.TrimSpace(r.PostFormValue("user"))
	}
	c.render(w, r, status, "setup", nil, setupData{CSRF: v, User: user, Error: msg, LogCode: CodeSetupCode, Min: account.MinPassword, Max: account.MaxPassword, Cluster: c.cfg.Binary == "ql", Gap: sentenceGap(lang(r))})
}

// setup creates the first owner with the setup code and signs it in. The
// fields are checked before the code, so a typo in them does not spend
// it; a wrong code counts against the address's limit; the right one is
// spent before the account is stored, so of two forms sent at once with
// it exactly one goes on.
func (c *Console) setup(w http.ResponseWriter, r *http.Request, _ *session) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	l := lang(r)
	if tooLarge(r) {
		c.renderSetup(w, r, fmt.Sprintf(tr(l, "err.toolarge"), maxForm>>10), http.StatusRequestEntityTooLarge)
		return
	}
	v, err := c.formValue(r, setupCookie)
	if err != nil && c.cameOverPlainHTTP(r) {
		c.usePublicAddress(w, r, "/setup")
		return
	}
	if c.crossOrigin.Check(r) != nil {
		c.renderSetup(w, r, tr(l, "err.crossform"), http.StatusForbidden)
		return
	}
	if err != nil || !sameSecret(r.PostFormValue("csrf"), v) {
		c.renderSetup(w, r, tr(l, "err.setupcsrf"), http.StatusForbidden)
		return
	}
	done, err := hold.Admit(c.cfg.Writes)
	if err != nil {
		retryAfter(w, err)
		c.renderSetup(w, r, c.formError(l, err), statusOf(err))
		return
	}
	defer done()
	if !c.setupGate(w, r) {
		return
	}
	addr := remoteHost(r)
	try, ok := c.setupThrottle.tries.Reserve(time.UnixMilli(c.cfg.NowMs()), c.setupThrottle.byAddr.Key(authlimit.Client(addr)))
	if !ok {
		c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceSetup, Addr: addr, Reason: authlog.ReasonThrottled})
		c.throttle.refusals.Add(1)
		w.Header().Set("Retry-After", retryThrottled)
		c.renderSetup(w, r, tr(l, "err.setupthrottle"), http.StatusTooManyRequests)
		return
	}
	wrongCode := false
	defer func() { try.Settle(time.UnixMilli(c.cfg.NowMs()), wrongCode) }()
	name, password, code := strings.TrimSpace(r.PostFormValue("user")), r.PostFormValue("password"), r.PostFormValue("code")
	if err := validate.Name("user name", name); err != nil {
		c.renderSetup(w, r, c.formError(l, err), http.StatusBadRequest)
		return
	}
	if msg := newPasswordFault(l, name, password, r.PostFormValue("password2")); msg != "" {
		c.renderSetup(w, r, msg, http.StatusBadRequest)
		return
	}
	if !c.cfg.Setup.Spend(code) {
		wrongCode = true
		c.authLog.Failed(authlog.Event{Surface: authlog.SurfaceSetup, Addr: addr, Reason: authlog.ReasonSetupCodeWrong})
		c.throttle.fails.Add(1)
		c.renderSetup(w, r, fmt.Sprintf(tr(l, "err.setupcode"), CodeSetupCode), http.StatusUnauthorized)
		return
	}
	u, hash, err := account.CreateFirstOwner(r.Context(), c.cfg.FirstOwner, setupActor(r), ids.New(), name, password)
	switch {
	case qlerror.CodeOf(err) == qlerror.Conflict:
		c.cfg.Setup.Close()
		c.renderSetup(w, r, tr(l, "err.setupexists"), http.StatusConflict)
		return
	case err != nil:
		c.cfg.Setup.Unspend(code)
		c.cfg.Log.Warn("console setup: storing the first owner", "code", CodeFirstOwnerFailed, "err", err)
		c.renderSetup(w, r, tr(l, "err.setupstore"), http.StatusServiceUnavailable)
		return
	}
	c.cfg.Setup.Close()
	c.cfg.Log.Info("console: the first owner was created with the setup code", "code", CodeFirstOwnerCreated, "user", u.Name, "addr", addr)
	c.authLog.SignedIn(authlog.Event{Surface: authlog.SurfaceSetup, Addr: addr, Name: u.Name, Reason: authlog.ReasonSetupCode})
	if c.cfg.Users != nil {
		if err := c.cfg.Users.UserSignedIn(r.Context(), u.ID, c.cfg.NowMs()); err != nil {
			c.cfg.Log.Warn("console setup: recording the sign-in", "code", CodeSigninRecordFailed, "err", err) // informational; the sign-in stands
		}
	}
	http.SetCookie(w, c.cookie(setupCookie, "", "/setup", -1))
	if err := c.start(r.Context(), w, &session{userID: u.ID, stamp: account.PasswordStamp(hash), name: u.Name, scope: u.Role.Scope()}); err != nil {
		c.startFailed(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// newPasswordFault says, in language l, what is wrong with a new
// password for user name typed twice, by the rules of `ql users passwd`;
// "" when nothing is.
func newPasswordFault(l, name, password, again string) string {
	if password != again {
		return tr(l, "err.pwmismatch")
	}
	if n := utf8.RuneCountInString(password); utf8.ValidString(password) && (n < account.MinPassword || n > account.MaxPassword) {
		return fmt.Sprintf(tr(l, "err.pwlength"), n, account.MinPassword, account.MaxPassword)
	}
	if err := account.CheckNewPassword(name, password); err != nil {
		return formErrorText(l, err)
	}
	return ""
}
