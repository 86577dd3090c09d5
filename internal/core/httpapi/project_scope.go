package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
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
	// runProject, triggerProject and notificationProject: the path's {id}
	// is a Run's, a trigger's or a notification's, whose project is read
	// first; another project's is answered as an unknown id is (404 with
	// the same body), so a bound token cannot tell another project's
	// object from none. A server that cannot place a notification refuses
	// a bound token.
	runProject
	triggerProject
	notificationProject
	// listed: a listing, whose store keeps only the token's projects'
	// rows before it cuts the page (InProjects of each listing's
	// parameters, the project list's too), so a page is full of them and
	// next continues them. Its ?project= names a project as a path does,
	// and is refused as a path's is (filterProject).
	listed
	// fileProject: apply, which refuses a file of another project once
	// it has read the file's project.
	fileProject
	// secretProject: a secret's set or delete, whose {name} is PROJECT/NAME
	// in a project's namespace: that project is checked as a path's is; a
	// global name (no slash) is no one project's, as everyProject.
	secretProject
	// everyProject: a route that is no one project's (the secrets' list,
	// metrics): refused to a bound token.
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
		id := r.PathValue("id")
		d, err := a.Runs.RunGet(ctx, id)
		if err != nil {
			return err
		}
		if !t.Covers(d.Run.ProjectName) {
			return schedule.RunNotFound(id)
		}
	case triggerProject:
		id := r.PathValue("id")
		d, err := a.Detail.TriggerDetail(ctx, id, 1)
		if err != nil {
			return err
		}
		if !t.Covers(d.ProjectName) {
			return schedule.TriggerMissing(id)
		}
	case notificationProject:
		if a.NotificationProjects == nil {
			return apitoken.ErrNoOneProjects(t, r.Method+" "+clip(r.URL.Path))
		}
		id := r.PathValue("id")
		project, err := a.NotificationProjects.NotificationProject(ctx, id)
		if err != nil {
			return err
		}
		if !t.Covers(project) {
			return notify.ErrMissing(id)
		}
	case listed:
		return a.filterProject(ctx, t, r.URL.Query().Get("project"))
	case secretProject:
		if p := task.SecretProject(r.PathValue("name")); p != "" {
			return covers(t, p)
		}
		return apitoken.ErrNoOneProjects(t, r.Method+" "+clip(r.URL.Path))
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

// filterProject checks a listing's ?project=, a project's id: one the
// token is not bound to is refused whether it exists or not, as a path's
// project is, rather than answered with an empty page that reads as "no
// rows". What is not an id is left to the handler to refuse.
func (a *api) filterProject(ctx context.Context, t apitoken.Token, raw string) error {
	id, isID := canonicalID(raw)
	if !isID {
		return nil
	}
	var name string
	if a.Export != nil {
		var err error
		if name, err = a.Export.ProjectNameOf(ctx, id); err != nil {
			return err
		}
	}
	return coversAs(t, name, "project "+id)
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
// Runs of the others in others: which trigger of another team's project
// holds them is that project's to know, not the bound token's.
func boundHolders(ctx context.Context, holders []run.SlotHolder) (kept []run.SlotHolder, others int) {
	t := tokenOf(ctx)
	if !t.Bound() {
		return holders, 0
	}
	for _, h := range holders {
		if t.Covers(h.Project) {
			kept = append(kept, h)
		} else {
			others += h.Runs
		}
	}
	return kept, others
}

// boundLast is last with each trigger's slot holders kept as
// boundHolders keeps them, so a backlog's advice names no other project's
// trigger to a bound token.
func boundLast(ctx context.Context, last map[string]run.Last) map[string]run.Last {
	for id, l := range last {
		l.SlotHolders, l.OtherProjectsRuns = boundHolders(ctx, l.SlotHolders)
		last[id] = l
	}
	return last
}
