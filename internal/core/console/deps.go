package console

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
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
}

// depsKind is one kind's part of the page.
type depsKind struct {
	Kind string
	// Missing says, in the page's language, why this server cannot
	// install this kind (no installer, not root): its forms are then not
	// offered.
	Missing string
	Rows    []depsRow
}

// depsRow is one declared package as shown: State is installed, failed,
// installing, declared (never installed) or gone (its Run was deleted
// by retention), RunState the Run's own.
type depsRow struct {
	deps.Declared
	State    string
	RunState run.State
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
	list, err := dp.Store.DependencyList(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	l := lang(r)
	for _, k := range deps.Kinds {
		dk := depsKind{Kind: string(k)}
		if _, err := dp.Host.Installer(k); err != nil {
			dk.Missing = c.errorText(l, err)
		}
		for _, x := range list {
			if x.Kind != k {
				continue
			}
			row, err := c.depsRow(r, x)
			if err != nil {
				c.fail(w, r, s, err)
				return
			}
			dk.Rows = append(dk.Rows, row)
		}
		d.Kinds = append(d.Kinds, dk)
	}
	c.render(w, r, status, "deps", s, d)
}

// depsRow is x with the state of the Run that installed it.
func (c *Console) depsRow(r *http.Request, x deps.Declared) (depsRow, error) {
	row := depsRow{Declared: x, State: "declared"}
	if x.RunID == "" {
		return row, nil
	}
	det, err := c.cfg.Runs.RunGet(r.Context(), x.RunID)
	switch {
	case qlerror.CodeOf(err) == qlerror.NotFound:
		row.State = "gone"
		return row, nil
	case err != nil:
		return row, err
	}
	row.RunState = det.Run.State
	switch {
	case !det.Run.State.Finished():
		row.State = "installing"
	case det.Run.State == run.Succeeded:
		row.State = "installed"
	default:
		row.State = "failed"
	}
	return row, nil
}

// depsAdd declares the packages the form lists, several at once, and
// installs them in one Run.
func (c *Console) depsAdd(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Dependencies == nil {
		c.depsPage(w, r, s)
		return
	}
	kind, text := r.PostFormValue("kind"), r.PostFormValue("names")
	k, err := deps.ParseKind(kind)
	var pkgs []deps.Package
	if err == nil {
		pkgs, err = deps.ParseList(k, text)
	}
	if err == nil {
		_, err = c.cfg.Dependencies.Host.Installer(k)
	}
	if err == nil {
		err = c.cfg.Dependencies.Store.DependencyDeclare(r.Context(), s.actor(r), pkgs)
	}
	if err != nil {
		c.refuseDeps(w, r, s, depsData{Kind: kind, Text: text}, err)
		return
	}
	c.depsDo(w, r, s, k, deps.Install, pkgs, depsData{Kind: kind, Text: text})
}

// depsInstall installs again one declared package (name), or every
// declared package of the kind (all=1), in one Run.
func (c *Console) depsInstall(w http.ResponseWriter, r *http.Request, s *session) {
	c.depsChange(w, r, s, deps.Install)
}

// depsRemove uninstalls one declared package and forgets it.
func (c *Console) depsRemove(w http.ResponseWriter, r *http.Request, s *session) {
	c.depsChange(w, r, s, deps.Remove)
}

func (c *Console) depsChange(w http.ResponseWriter, r *http.Request, s *session, a deps.Action) {
	dp := c.cfg.Dependencies
	if dp == nil {
		c.depsPage(w, r, s)
		return
	}
	kind := r.PostFormValue("kind")
	k, err := deps.ParseKind(kind)
	if err != nil {
		c.refuseDeps(w, r, s, depsData{}, err)
		return
	}
	list, err := dp.Store.DependencyList(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	all, name := a == deps.Install && r.PostFormValue("all") == "1", r.PostFormValue("name")
	var pkgs []deps.Package
	for _, x := range list {
		if x.Kind == k && (all || x.Name == name) {
			pkgs = append(pkgs, x.Package)
		}
	}
	if len(pkgs) == 0 {
		err := deps.NotDeclared(deps.Package{Kind: k, Name: name})
		if all {
			err = deps.NoneDeclared(k)
		}
		c.refuseDeps(w, r, s, depsData{}, err)
		return
	}
	c.depsDo(w, r, s, k, a, pkgs, depsData{})
}

// depsDo asks for the Run that does a to pkgs and goes to the page,
// which names it.
func (c *Console) depsDo(w http.ResponseWriter, r *http.Request, s *session, k deps.Kind, a deps.Action, pkgs []deps.Package, back depsData) {
	id, err := c.cfg.Dependencies.Do(r.Context(), s.actor(r), k, a, pkgs)
	if err != nil {
		if id != "" {
			// The Run stands: say so where it is.
			c.fail(w, r, s, err)
			return
		}
		c.refuseDeps(w, r, s, back, err)
		return
	}
	names := make([]string, len(pkgs))
	for i, p := range pkgs {
		names[i] = p.Spec
	}
	key := "dep.done.install"
	if a == deps.Remove {
		key = "dep.done.remove"
	}
	c.redirectWith(w, r, s, "/dependencies", flash{Message: fmt.Sprintf(tr(lang(r), key), strings.Join(names, " "), id)})
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
