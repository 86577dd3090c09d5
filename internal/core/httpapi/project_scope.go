package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// projectRule is how a route finds the project a request acts on, so that
// a token bound to projects (apitoken.Token.Projects) acts on those only.
// A token of every project passes every rule untouched.
type projectRule int

const (
	// noProject: the probes, and the 404 and 405 of a path or method no
	// route serves, which read nothing of any project.
	noProject projectRule = iota
	// pathProject: the path's {project} or {name} is the project, checked
	// before anything is read, so a bound token learns nothing of another
	// project, not even whether it exists.
	pathProject
	// runProject and triggerProject: the path's {id} is a Run's or a
	// trigger's, whose project is read first; an unknown id is 404 as for
	// any token. A bound token of another project learns that an id (a
	// UUIDv7, never guessed) exists, and nothing of it.
	runProject
	triggerProject
	// notificationProject: the path's {id} is a notification's, whose
	// project is read first (a retry); a server that cannot place one
	// refuses a bound token.
	notificationProject
	// listed: a listing, whose store keeps only the token's projects'
	// rows before it cuts the page (InProjects of each listing's
	// parameters), so a page is full of them and next continues them;
	// the project list, one page of every project, keeps them by
	// boundRows.
	listed
	// fileProject: apply, which refuses a file of another project once
	// it has read the file's project.
	fileProject
	// everyProject: a route that is no one project's (secrets, metrics):
	// refused to a bound token.
	everyProject
)

// routeProject checks, for a route of rule rule, that a bound token t may
// act on the project the request addresses; nil for an unbound token.
func (a *api) routeProject(ctx context.Context, rule projectRule, t apitoken.Token, r *http.Request) error {
	if !t.Bound() {
		return nil
	}
	switch rule {
	case pathProject:
		name := r.PathValue("project")
		if name == "" {
			name = r.PathValue("name")
		}
		// Pause and resume take a project's id too (older links): its
		// project is the one of that name, and an unknown id no one's.
		if id, isID := canonicalID(name); isID && a.Export != nil {
			named, err := a.Export.ProjectNameOf(ctx, id)
			if err != nil {
				return err
			}
			return coversAs(t, named, "project "+id)
		}
		return covers(t, name)
	case runProject:
		d, err := a.Runs.RunGet(ctx, r.PathValue("id"))
		if err != nil {
			return err
		}
		return coversAs(t, d.Run.ProjectName, "Run "+d.Run.ID)
	case triggerProject:
		d, err := a.Detail.TriggerDetail(ctx, r.PathValue("id"), 1)
		if err != nil {
			return err
		}
		return coversAs(t, d.ProjectName, "trigger "+d.TriggerID)
	case notificationProject:
		if a.NotificationProjects == nil {
			return apitoken.ErrNoOneProjects(t, r.Method+" "+clip(r.URL.Path))
		}
		id := r.PathValue("id")
		project, err := a.NotificationProjects.NotificationProject(ctx, id)
		if err != nil {
			return err
		}
		return coversAs(t, project, "notification "+id)
	case everyProject:
		return apitoken.ErrNoOneProjects(t, r.Method+" "+clip(r.URL.Path))
	}
	return nil
}

// boundedRouteProject is routeProject within the request's time, as the
// handler's reads are (admitted): a look-up of a trigger's or a Run's
// project that the store holds up ends with the request's limit, said as
// that, rather than holding the request past it.
func (a *api) boundedRouteProject(rule projectRule, t apitoken.Token, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), a.RequestTimeout)
	defer cancel()
	if err := a.routeProject(ctx, rule, t, r); err != nil {
		return a.outOfTime(ctx, r, err)
	}
	return nil
}

// covers checks a project the request names itself (a path, a file's
// project:), which the refusal may repeat.
func covers(t apitoken.Token, project string) error {
	return coversAs(t, project, "project "+project)
}

// coversAs checks the project of the object what names; the refusal names
// what, never the project of an object reached by its id, which a bound
// token may not learn.
func coversAs(t apitoken.Token, project, what string) error {
	if t.Covers(project) {
		return nil
	}
	return apitoken.ErrProjectNotInScope(t, what)
}

// tokenOf is the token a request was authenticated with.
func tokenOf(ctx context.Context) apitoken.Token { return principalOf(ctx).tok }

// boundRows keeps the rows of rows whose project (by projectOf) the
// request's token covers: all of them for a token of every project.
func boundRows[T any](ctx context.Context, rows []T, projectOf func(T) (string, error)) ([]T, error) {
	t := tokenOf(ctx)
	if !t.Bound() {
		return rows, nil
	}
	out := rows[:0:0]
	for _, row := range rows {
		p, err := projectOf(row)
		if err != nil {
			return nil, err
		}
		if t.Covers(p) {
			out = append(out, row)
		}
	}
	return out, nil
}

// boundMissing is the refusal of a project a bound token may act on but
// that does not exist: it names the token's projects, never the others
// (apply.ProjectMissing lists them for a token of every project).
func boundMissing(ctx context.Context, name string, err error) error {
	t := tokenOf(ctx)
	if !t.Bound() || qlerror.ReasonOf(err) != catalog.RefusalProjectMissing {
		return err
	}
	return qlerror.New(qlerror.NotFound, "project %q does not exist; token %q is bound to %s, and `ql apply -f FILE` creates a project", name, t.Name, t.ProjectsText()).
		Because(catalog.RefusalProjectMissing, "name", name)
}

// boundHolders keeps, for a token bound to projects, the triggers of its
// own projects among those holding a single node's slots, and counts the
// others in more: which trigger of another team's project holds them is
// that project's to know, not the bound token's.
func boundHolders(ctx context.Context, holders []run.SlotHolder, more int) ([]run.SlotHolder, int) {
	t := tokenOf(ctx)
	if !t.Bound() {
		return holders, more
	}
	var kept []run.SlotHolder
	for _, h := range holders {
		if t.Covers(h.Project) {
			kept = append(kept, h)
		} else {
			more++
		}
	}
	return kept, more
}

// boundLast is last with each trigger's slot holders kept as
// boundHolders keeps them, so a backlog's advice names no other project's
// trigger to a bound token.
func boundLast(ctx context.Context, last map[string]run.Last) map[string]run.Last {
	for id, l := range last {
		l.SlotHolders, l.MoreSlotHolders = boundHolders(ctx, l.SlotHolders, l.MoreSlotHolders)
		last[id] = l
	}
	return last
}
