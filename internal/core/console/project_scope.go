package console

import (
	"context"
	"net/http"
	"slices"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// projectRule is how a route finds the project a request acts on, so that
// a user bound to projects (account.User.Projects) sees and acts on those
// only. A session of every project passes every rule untouched.
type projectRule int

const (
	// noProject: pages of the session itself (account, sign-out) and the
	// pages before one (sign-in, setup, assets).
	noProject projectRule = iota
	// listed: a listing whose store keeps only the user's projects' rows
	// before it cuts the page (bound.in), so a page is full of them.
	listed
	// pathProject: the path's {project} is the project, by name.
	pathProject
	// runProject, triggerProject and notificationProject: the path's
	// {id} is a Run's, a trigger's or a notification's, whose project is
	// read first; another project's is answered as an id no object has
	// (404, the same words), as the API answers a bound token, so a bound
	// user cannot tell another project's object from none.
	runProject
	triggerProject
	notificationProject
	// everyProject: a page that is no one project's (the workers, whose
	// attempts are every project's): refused to a bound user.
	everyProject
	// adminOfEveryProject: the admin pages over every project at once:
	// the definitions pages, which read and publish any project's
	// definitions, chosen by a picker of every project, a form's field or
	// a file's project:; the tokens, each of which may reach every
	// project; the secrets, a global one every project's; and the audit
	// trail, every project's records. Refused to a bound user outright,
	// whatever its role, rather than trusting that no role with the admin
	// scope is ever bound: none reaches another project's there.
	adminOfEveryProject
)

// bound is the projects the request's user is bound to: none for a
// session of every project (a token's, an owner's, an unbound user's).
type bound struct {
	user     string
	projects []string
}

type boundKey struct{}

// withBound is ctx carrying b, for the handlers' listings and checks.
func withBound(ctx context.Context, b bound) context.Context {
	return context.WithValue(ctx, boundKey{}, b)
}

// boundOf is the bound of the request's session.
func boundOf(ctx context.Context) bound {
	b, _ := ctx.Value(boundKey{}).(bound)
	return b
}

// in is the projects a listing keeps (nil: every project).
func (b bound) in() []string { return b.projects }

// has reports whether the user may see and act on the project named
// project.
func (b bound) has(project string) bool {
	return len(b.projects) == 0 || slices.Contains(b.projects, project)
}

// reaches checks that the user may see and act on an object of the
// project named project reached by its id: one of another project is
// refused with missing, the refusal of an id no object has.
func (b bound) reaches(project string, missing error) error {
	if b.has(project) {
		return nil
	}
	return missing
}

// covers checks that the user may see and act on the project named
// project, which the request names itself; what names it in the refusal.
func (b bound) covers(project, what string) error {
	if b.has(project) {
		return nil
	}
	return account.ErrProjectNotInScope(b.user, b.projects, what)
}

// routeProject checks, for a route of rule rule, that the request's user
// may see and act on the project it addresses; nil for a session of every
// project.
func (c *Console) routeProject(ctx context.Context, rule projectRule, r *http.Request) error {
	b := boundOf(ctx)
	if len(b.projects) == 0 {
		return nil
	}
	switch rule {
	case pathProject:
		name := r.PathValue("project")
		return b.covers(name, "project "+name)
	case runProject:
		return c.runInScope(ctx, r.PathValue("id"))
	case triggerProject:
		id := r.PathValue("id")
		d, err := c.cfg.Detail.TriggerDetail(ctx, id, 1)
		if err != nil {
			return err
		}
		return b.reaches(d.ProjectName, schedule.TriggerMissing(id))
	case notificationProject:
		return c.notificationInScope(ctx, r.PathValue("id"))
	case everyProject, adminOfEveryProject:
		return account.ErrProjectNotInScope(b.user, b.projects, r.Method+" "+r.URL.Path)
	}
	return nil
}

// runInScope checks that the request's user may see and act on the Run
// of id: another project's is missing to it.
func (c *Console) runInScope(ctx context.Context, id string) error {
	b := boundOf(ctx)
	if len(b.projects) == 0 {
		return nil
	}
	d, err := c.cfg.Runs.RunGet(ctx, id)
	if err != nil {
		return err
	}
	return b.reaches(d.Run.ProjectName, schedule.RunNotFound(id))
}

// notificationInScope checks that the request's user may retry the
// notification of id, another project's being missing to it: refused
// when the server cannot place one.
func (c *Console) notificationInScope(ctx context.Context, id string) error {
	b := boundOf(ctx)
	if len(b.projects) == 0 {
		return nil
	}
	if c.cfg.NotificationProjects == nil {
		return account.ErrProjectNotInScope(b.user, b.projects, "notification "+id)
	}
	project, err := c.cfg.NotificationProjects.NotificationProject(ctx, id)
	if err != nil {
		return err
	}
	return b.reaches(project, notify.ErrMissing(id))
}

// boundHolders keeps, for a user bound to projects, the triggers of its
// own projects among those holding a single node's slots, and counts the
// others in more: which trigger of another project holds them is not the
// user's to know.
func boundHolders(ctx context.Context, holders []run.SlotHolder, more int) ([]run.SlotHolder, int) {
	b := boundOf(ctx)
	if len(b.projects) == 0 {
		return holders, more
	}
	var kept []run.SlotHolder
	for _, h := range holders {
		if b.has(h.Project) {
			kept = append(kept, h)
		} else {
			more++
		}
	}
	return kept, more
}

// boundLast keeps each trigger's slot holders in last as boundHolders
// does, so a backlog's warning names no other project's trigger.
func boundLast(ctx context.Context, last map[string]run.Last) {
	for id, l := range last {
		l.SlotHolders, l.MoreSlotHolders = boundHolders(ctx, l.SlotHolders, l.MoreSlotHolders)
		last[id] = l
	}
}
