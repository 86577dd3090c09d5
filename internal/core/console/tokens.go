package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// errNoTokenAdmin answers the tokens page where the server's database role
// may not manage tokens (a cluster replica runs as the runtime role).
func errNoTokenAdmin() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server cannot manage API tokens (a cluster replica runs as the runtime role); use `ql tokens` with the admin role's URL").Because(refusalCannotManageTokens)
}

type tokensData struct {
	List   []tokenRow
	Scopes []apitoken.Scope
	// Secret is the token just created, shown on the one page its
	// creation's redirect shows.
	Secret, Created string
	// ShownOnce is the token whose secret was shown already: that page
	// reloaded, or come back to.
	ShownOnce string
	// Revoked is the token just revoked, when it is one of List's.
	Revoked string
	// Confirm is the active token a revoke asks to be confirmed.
	Confirm *tokenRow
	// Errors are why the form's token was not created, in the order of
	// the form's fields; Form is the form as it was sent, to fix and send
	// again.
	Errors []string
	Form   tokenForm
	// Projects are the projects a new token may be bound to, the form's
	// chosen ones among them.
	Projects []catalog.ProjectName
}

// tokenForm is the new-token form's fields; Projects are the projects
// the token is bound to, none for every project (as `ql tokens create
// --project`).
type tokenForm struct {
	Name, Scope, Expires string
	Projects             []string
}

// Bound says whether the form binds its token to project.
func (f tokenForm) Bound(project string) bool { return slices.Contains(f.Projects, project) }

type tokenRow struct {
	apitoken.Token
	State string
}

// tokensPage lists every token (never a secret: none is stored); ?revoke=
// asks to confirm a revoke, and ?revoked= is the notice of one just made.
func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, s *session) {
	d := tokensData{Revoked: r.URL.Query().Get("revoked")}
	if f := flashOf(r); f != nil && f.Secret != "" {
		d.Secret, d.Created = f.Secret, r.URL.Query().Get(createdParam)
	} else {
		d.ShownOnce = r.URL.Query().Get(createdParam)
	}
	c.renderTokens(w, r, s, http.StatusOK, d)
}

// renderTokens shows the tokens page with d's message fields and the
// current list.
func (c *Console) renderTokens(w http.ResponseWriter, r *http.Request, s *session, status int, d tokensData) {
	if c.cfg.TokenAdmin == nil {
		c.fail(w, r, s, errNoTokenAdmin())
		return
	}
	list, err := c.cfg.TokenAdmin.TokenList(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	now := c.cfg.NowMs()
	d.Scopes = apitoken.Scopes
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	for _, p := range d.Form.Projects {
		d.Projects = withChosen(d.Projects, catalog.ProjectName{Name: p})
	}
	revoked, shownOnce := d.Revoked, d.ShownOnce
	d.Revoked, d.ShownOnce = "", ""
	for _, t := range list {
		row := tokenRow{t, t.StateAt(now)}
		if t.Name == revoked && row.State == apitoken.StateRevoked {
			d.Revoked = revoked
		}
		if t.Name == shownOnce {
			d.ShownOnce = shownOnce
		}
		d.List = append(d.List, row)
	}
	if name := r.URL.Query().Get("revoke"); r.Method == http.MethodGet && name != "" {
		if i := slices.IndexFunc(d.List, func(t tokenRow) bool { return t.Name == name && t.State == apitoken.StateActive }); i >= 0 {
			d.Confirm = &d.List[i]
		}
	}
	c.render(w, r, status, "tokens", s, d)
}

// tokenCreate creates a token and sends the browser to the tokens page,
// which shows its secret once: not in the redirect's URL, and never again.
func (c *Console) tokenCreate(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.TokenAdmin == nil {
		c.fail(w, r, s, errNoTokenAdmin())
		return
	}
	form := tokenForm{Name: strings.TrimSpace(r.PostFormValue("name")), Scope: r.PostFormValue("scope"), Expires: strings.TrimSpace(r.PostFormValue("expires"))}
	for _, p := range r.PostForm["project"] {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(form.Projects, p) {
			form.Projects = append(form.Projects, p)
		}
	}
	refuse := func(errs ...error) {
		d := tokensData{Form: form}
		status := http.StatusBadRequest
		for _, err := range errs {
			if status = statusOf(err); status >= http.StatusInternalServerError {
				c.fail(w, r, s, err)
				return
			}
			d.Errors = append(d.Errors, c.formError(lang(r), err))
		}
		c.renderTokens(w, r, s, status, d)
	}
	// Each field is checked, in the form's order, so that a form of
	// several mistakes is answered with all of them, each where a reader
	// of the form meets its field.
	var mistakes []error
	if err := validate.Name("token name", form.Name); err != nil {
		mistakes = append(mistakes, err)
	}
	scope, err := apitoken.ParseScope(form.Scope)
	if err != nil {
		mistakes = append(mistakes, err)
	}
	var life time.Duration
	if form.Expires != "" {
		if life, err = apitoken.ParseExpiry(form.Expires); err != nil {
			mistakes = append(mistakes, err)
		}
	}
	if len(mistakes) > 0 {
		refuse(mistakes...)
		return
	}
	secret, t, err := apitoken.Create(r.Context(), c.cfg.TokenAdmin, s.actor(r), ids.New(), form.Name, scope, life, form.Projects...)
	if err != nil {
		refuse(err)
		return
	}
	c.cfg.Log.Info("console: API token created", "code", CodeTokenCreated, "name", t.Name, "scope", t.Scope, "projects", t.ProjectsText(), "actor", s.actor(r))
	// The secret stays in the session, never in the address nor a log,
	// until the page the redirect shows takes it.
	c.redirectWith(w, r, s, "/tokens?"+url.Values{createdParam: {t.Name}}.Encode(), flash{Secret: secret})
}

// createdParam names the token the tokens page was sent to after creating
// it: once its secret has been shown, a reload says it was and is not
// shown again.
const createdParam = "created"

func (c *Console) tokenRevoke(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.TokenAdmin == nil {
		c.fail(w, r, s, errNoTokenAdmin())
		return
	}
	name := r.PathValue("name")
	if err := c.cfg.TokenAdmin.TokenRevoke(r.Context(), name, s.actor(r)); err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.cfg.Log.Info("console: API token revoked", "code", CodeTokenRevoked, "name", name, "actor", s.actor(r))
	http.Redirect(w, r, "/tokens?revoked="+url.QueryEscape(name), http.StatusSeeOther)
}
