package console

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// projectsOffered caps the projects a picker offers: a project past them
// is still taken when its name is typed (the definitions page) or given
// in the address (?project=NAME), and a list page's picker then offers it
// too.
const projectsOffered = 1000

// projectChoices are the projects a picker offers, by name with each one's
// display title, every project (those without a trigger too) up to
// projectsOffered, in name order; none where the server reads no
// definitions. A user bound to projects is offered those alone, kept
// before the cap cuts, however many other projects sort first.
func (c *Console) projectChoices(ctx context.Context) ([]catalog.ProjectName, error) {
	if c.cfg.Export == nil {
		return nil, nil
	}
	return c.cfg.Export.ProjectNames(ctx, "", projectsOffered, boundOf(ctx).in())
}

// unarchived are the projects of ps that are not archived: a form that
// publishes to a project offers none an apply would refuse.
func unarchived(ps []catalog.ProjectName) []catalog.ProjectName {
	return slices.DeleteFunc(slices.Clone(ps), func(p catalog.ProjectName) bool { return p.Status == project.Archived })
}

// withChosen are a picker's choices with the chosen project among them, in
// name order, so that the picker shows it chosen (and a form sent again
// keeps it) however far past projectsOffered it sorts.
func withChosen(choices []catalog.ProjectName, chosen catalog.ProjectName) []catalog.ProjectName {
	i, found := slices.BinarySearchFunc(choices, chosen.Name, func(p catalog.ProjectName, name string) int { return strings.Compare(p.Name, name) })
	if chosen.Name == "" || found {
		return choices
	}
	return slices.Insert(slices.Clone(choices), i, chosen)
}

// projectPick is the project a list page's ?project= names: the id the
// listing is filtered by, the name its picker shows ("" for every project)
// and the project's display title, which the page heads with, and whether
// it is archived (its page then offers its deletion), and its slot cap
// (maxRunning, 0 none) and its env, which its page says.
type projectPick struct {
	ID, Name, Title string
	Archived        bool
	MaxRunning      int
	Env             []task.EnvVar
}

// named is the pick as a picker's choice.
func (p projectPick) named() catalog.ProjectName {
	return catalog.ProjectName{Name: p.Name, Title: p.Title}
}

// pickProject reads a list page's ?project=: a project's name, as the
// picker sends it, or its id, as older links and the API give it. A name
// is looked up first, so a project named like an id is found by its name.
// An id is answered with redirect, the page's address naming the project
// by name instead: the address then reads as the picker writes it, the
// picker shows the project chosen, and a link that named it by id keeps
// working. A name or id no project has is refused (Invalid), for the page
// to say so beside its filters.
func (c *Console) pickProject(r *http.Request) (pick projectPick, redirect string, err error) {
	v := r.URL.Query().Get("project")
	if v == "" || c.cfg.Export == nil {
		return projectPick{ID: v, Name: v}, "", nil
	}
	// The project alone: no task or trigger is read.
	d, err := c.cfg.Export.ProjectDefinitions(r.Context(), v, 0)
	if err == nil {
		if err := boundOf(r.Context()).covers(d.Project.Name, "project "+d.Project.Name); err != nil {
			return projectPick{}, "", err
		}
		return projectPick{ID: d.Project.ID, Name: d.Project.Name, Title: d.Project.Title, Archived: d.Project.Status == project.Archived, MaxRunning: d.Project.MaxRunning, Env: d.Project.Env}, "", nil
	}
	if qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		return projectPick{}, "", err
	}
	if ids.Validate("project", v) != nil {
		return projectPick{}, "", qlerror.New(qlerror.Invalid, "no project is named %q; choose one of the projects listed", v).Because(refusalNoSuchProject, "name", v)
	}
	redirect, err = c.projectAddress(r, v)
	if err == nil && redirect == "" {
		err = qlerror.New(qlerror.Invalid, "no project here has the id %s (the link may come from another server); choose one of the projects listed", v).Because(refusalNoProjectID, "id", v)
	}
	return projectPick{}, redirect, err
}

// projectAddress is the request's address with ?project= naming by name
// the project whose id is id, "" when no project has that id.
func (c *Console) projectAddress(r *http.Request, id string) (string, error) {
	name, err := c.cfg.Export.ProjectNameOf(r.Context(), id)
	if err != nil || name == "" {
		return "", err
	}
	q := r.URL.Query()
	q.Set("project", name)
	return r.URL.Path + "?" + q.Encode(), nil
}
