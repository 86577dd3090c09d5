package console

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/deps"
)

// depsData is what the Dependencies page shows: per kind, the declared
// packages with the state of the Run that installed each, and the form
// that adds more; Here is false where the commands run on other machines
// (a cluster's workers), each of which installs its own.
type depsData struct {
	Here  bool
	Kinds []depsKind
	// Project is the project the installers run in.
	Project string
	// Error is why the last form did nothing, in the page's language,
	// shown above the form of Kind, which keeps Text.
	Error, Kind, Text string
	// Mirrors are the settings of the kinds that take one; MirrorError
	// why the last settings form of MirrorKind did nothing, whose fields
	// Mirrors then keep as sent (without credentials).
	Mirrors                 []deps.Mirror
	MirrorError, MirrorKind string
	// Confirm is the package a Remove asks to be confirmed (?remove=).
	Confirm *deps.Listed
}

// depsKind is one kind's part of the page.
type depsKind struct {
	Kind string
	// Missing says, in the page's language, why this server cannot
	// install this kind (no installer, not root, a scripts folder the
	// --run-as account cannot write).
	Missing string
	Rows    []deps.Listed
}

// depsPage lists the declared packages of every kind.
func (c *Console) depsPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderDeps(w, r, s, http.StatusOK, depsData{})
}

func (c *Console) renderDeps(w http.ResponseWriter, r *http.Request, s *session, status int, d depsData) {
	dp := c.cfg.Dependencies
	if dp == nil {
		c.render(w, r, http.StatusOK, "deps", s, d)
		return
	}
	d.Here, d.Project = true, deps.ProjectName
	list, err := dp.DependencyListed(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if d.Mirrors == nil {
		if d.Mirrors, err = dp.DependencyMirrors(r.Context()); err != nil {
			c.fail(w, r, s, err)
			return
		}
	}
	q := r.URL.Query()
	l := lang(r)
	for _, k := range deps.Kinds {
		dk := depsKind{Kind: string(k)}
		if _, err := dp.Host.Ready(k); err != nil {
			dk.Missing = c.errorText(l, err)
		}
		for i, x := range list {
			if x.Kind == k {
				dk.Rows = append(dk.Rows, x)
			}
			if r.Method == http.MethodGet && string(x.Kind) == q.Get("kind") && x.Name == q.Get("remove") {
				d.Confirm = &list[i]
			}
		}
		d.Kinds = append(d.Kinds, dk)
	}
	c.render(w, r, status, "deps", s, d)
}

// depsAdd declares the packages the form lists, several at once, and
// installs them in one Run.
func (c *Console) depsAdd(w http.ResponseWriter, r *http.Request, s *session) {
	kind, text := r.PostFormValue("kind"), r.PostFormValue("names")
	c.depsDo(w, r, s, depsData{Kind: kind, Text: text}, "dep.done.install", func(dp *deps.Service, k deps.Kind) (string, error) {
		return dp.DependencyAdd(r.Context(), s.actor(r), k, text)
	})
}

// depsInstall installs again one declared package (name), or every
// declared package of the kind (all=1), in one Run.
func (c *Console) depsInstall(w http.ResponseWriter, r *http.Request, s *session) {
	name := r.PostFormValue("name")
	if r.PostFormValue("all") == "1" {
		name = ""
	}
	c.depsDo(w, r, s, depsData{}, "dep.done.install", func(dp *deps.Service, k deps.Kind) (string, error) {
		return dp.DependencyInstall(r.Context(), s.actor(r), k, name)
	})
}

// depsRemove uninstalls one declared package and forgets it: the page's
// row only links to the question (?remove=), whose form this is.
func (c *Console) depsRemove(w http.ResponseWriter, r *http.Request, s *session) {
	name := r.PostFormValue("name")
	c.depsDo(w, r, s, depsData{}, "dep.done.remove", func(dp *deps.Service, k deps.Kind) (string, error) {
		return dp.DependencyRemove(r.Context(), s.actor(r), k, name)
	})
}

// depsDo asks for the Run a form wants of the form's kind and goes to
// the page, which names it; a refusal is said above the form (back).
func (c *Console) depsDo(w http.ResponseWriter, r *http.Request, s *session, back depsData, done string, do func(*deps.Service, deps.Kind) (string, error)) {
	dp := c.cfg.Dependencies
	if dp == nil {
		c.depsPage(w, r, s)
		return
	}
	k, err := deps.ParseKind(r.PostFormValue("kind"))
	id := ""
	if err == nil {
		id, err = do(dp, k)
	}
	switch {
	case err != nil && id != "":
		// The Run stands, unrecorded: the error page says so.
		c.fail(w, r, s, err)
		return
	case err != nil:
		c.refuseDeps(w, r, s, back, err)
		return
	}
	shown := r.PostFormValue("name")
	if done != "dep.done.remove" {
		shown = c.runPackages(r, id)
	}
	c.redirectWith(w, r, s, "/dependencies", flash{Message: fmt.Sprintf(tr(lang(r), done), shown, id)})
}

// runPackages names what the Run id installs, as the list has them.
func (c *Console) runPackages(r *http.Request, id string) string {
	list, err := c.cfg.Dependencies.DependencyListed(r.Context())
	if err != nil {
		return ""
	}
	var names []string
	for _, x := range list {
		if x.RunID == id {
			names = append(names, x.Spec)
		}
	}
	return strings.Join(names, " ")
}

// refuseDeps says on the page why a form did nothing, keeping what it
// sent.
func (c *Console) refuseDeps(w http.ResponseWriter, r *http.Request, s *session, d depsData, err error) {
	status := statusOf(err)
	if status >= http.StatusInternalServerError {
		c.fail(w, r, s, err)
		return
	}
	d.Error = c.errorText(lang(r), err)
	retryAfter(w, err)
	c.renderDeps(w, r, s, status, d)
}

// depsMirror keeps the form's kind's registry and proxy, which its next
// install fetches through.
func (c *Console) depsMirror(w http.ResponseWriter, r *http.Request, s *session) {
	dp := c.cfg.Dependencies
	if dp == nil {
		c.depsPage(w, r, s)
		return
	}
	sent := deps.Mirror{Kind: deps.Kind(r.PostFormValue("kind")), Registry: r.PostFormValue("registry"), Proxy: r.PostFormValue("proxy")}
	m, err := dp.DependencyMirrorSet(r.Context(), s.actor(r), sent)
	if err != nil {
		if statusOf(err) >= http.StatusInternalServerError || outOfTime(r, err) {
			c.fail(w, r, s, err)
			return
		}
		mirrors, lerr := dp.DependencyMirrors(r.Context())
		if lerr != nil {
			c.fail(w, r, s, lerr)
			return
		}
		// The form keeps what was sent, without the credentials a URL
		// was refused for; a kind without a form (linux, or none) is
		// said at the top of the page.
		d := depsData{Mirrors: mirrors, Error: c.errorText(lang(r), err)}
		for i := range mirrors {
			if mirrors[i].Kind == sent.Kind {
				mirrors[i].Registry, mirrors[i].Proxy = deps.ShownURL(sent.Registry), deps.ShownURL(sent.Proxy)
				d.MirrorKind, d.MirrorError, d.Error = string(sent.Kind), d.Error, ""
			}
		}
		retryAfter(w, err)
		c.renderDeps(w, r, s, statusOf(err), d)
		return
	}
	l := lang(r)
	or := func(v string) string {
		if v == "" {
			return tr(l, "dep.mirror.default")
		}
		return v
	}
	c.redirectWith(w, r, s, "/dependencies", flash{Message: fmt.Sprintf(tr(l, "dep.done.mirror"), m.Kind, or(m.Registry), or(m.Proxy))})
}
