package console

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// errNoTokenAdmin answers the tokens page where the server's database role
// may not manage tokens (a cluster replica runs as the runtime role).
func errNoTokenAdmin() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server cannot manage API tokens (a cluster replica runs as the runtime role); use `ql tokens` with the admin role's URL")
}

type tokensData struct {
	List   []tokenRow
	Scopes []apitoken.Scope
	// Secret is the token just created, shown on this one answer only.
	Secret, Created string
}

type tokenRow struct {
	apitoken.Token
	State string
}

// tokensPage lists every token (never a secret: none is stored).
func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderTokens(w, r, s, http.StatusOK, "", "")
}

func (c *Console) renderTokens(w http.ResponseWriter, r *http.Request, s *session, status int, secret, created string) {
	if c.cfg.TokenAdmin == nil {
		c.fail(w, errNoTokenAdmin())
		return
	}
	list, err := c.cfg.TokenAdmin.TokenList(r.Context())
	if err != nil {
		c.fail(w, err)
		return
	}
	now := c.cfg.NowMs()
	d := tokensData{Scopes: apitoken.Scopes, Secret: secret, Created: created}
	for _, t := range list {
		d.List = append(d.List, tokenRow{t, t.StateAt(now)})
	}
	c.render(w, r, status, "tokens", s, d)
}

// tokenCreate creates a token and shows its secret in this answer only:
// not in a redirect's URL, and never again.
func (c *Console) tokenCreate(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.TokenAdmin == nil {
		c.fail(w, errNoTokenAdmin())
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	scope, err := apitoken.ParseScope(r.PostFormValue("scope"))
	if err != nil {
		c.fail(w, err)
		return
	}
	var life time.Duration
	if raw := strings.TrimSpace(r.PostFormValue("expires")); raw != "" {
		if life, err = apitoken.ParseExpiry(raw); err != nil {
			c.fail(w, err)
			return
		}
	}
	secret, t, err := apitoken.Create(r.Context(), c.cfg.TokenAdmin, ids.New(), name, scope, life)
	if err != nil {
		c.fail(w, err)
		return
	}
	c.cfg.Log.Info("console: API token created", "name", t.Name, "scope", t.Scope, "actor", s.actor(r))
	c.renderTokens(w, r, s, http.StatusOK, secret, t.Name)
}

func (c *Console) tokenRevoke(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.TokenAdmin == nil {
		c.fail(w, errNoTokenAdmin())
		return
	}
	name := r.PathValue("name")
	if err := c.cfg.TokenAdmin.TokenRevoke(r.Context(), name); err != nil {
		c.fail(w, err)
		return
	}
	c.cfg.Log.Info("console: API token revoked", "name", name, "actor", s.actor(r))
	http.Redirect(w, r, "/tokens?revoked="+url.QueryEscape(name), http.StatusSeeOther)
}
