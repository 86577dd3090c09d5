package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/triggerref"
)

// resolveFilters turns --project and --trigger values into ids. Each may be
// an id or a name; a trigger name may be qualified as project/trigger, and
// is looked up within --project when that is given. Names are resolved
// here, above the stores, through the trigger listing every profile and
// database role can read, so both stores keep filtering by id only. A name
// that matches nothing is an error naming it, never a silently empty list.
func resolveFilters(ctx context.Context, r schedule.StatusReader, project, trigger string) (projectID, triggerID string, err error) {
	return resolve(ctx, r, project, trigger, "--trigger")
}

// resolveTriggerArg is resolveFilters of a command's trigger argument
// (NAME, project/name or id) rather than a --trigger flag: a refusal
// names the argument as the user wrote it, not a flag the command lacks.
func resolveTriggerArg(ctx context.Context, r schedule.StatusReader, project, arg string) (projectID, triggerID string, err error) {
	return resolve(ctx, r, project, arg, "trigger")
}

// resolve is resolveFilters with label, how the trigger was given, for
// its refusals: "--trigger" (the flag) or "trigger" (an argument).
func resolve(ctx context.Context, r schedule.StatusReader, project, trigger, label string) (projectID, triggerID string, err error) {
	if projectID, err = resolveProject(ctx, r, project); err != nil || trigger == "" {
		return projectID, "", err
	}
	if isID(trigger) {
		return projectID, trigger, nil
	}
	name, projectLabel := trigger, project
	if p, t, ok := triggerref.Split(trigger); ok {
		qualified, err := resolveProject(ctx, r, p)
		if err != nil {
			return "", "", err
		}
		if projectID != "" && qualified != projectID {
			return "", "", Usagef("%s %q names project %s, but --project %q is another; give the project once", label, trigger, p, project)
		}
		projectID, name, projectLabel = qualified, t, p
	}
	found, err := triggerref.Named(ctx, r, projectID, name)
	switch {
	case err != nil:
		return "", "", err
	case len(found) == 0 && projectID != "":
		return "", "", qlerror.New(qlerror.NotFound, "no trigger named %q in project %s; `ql triggers list` shows the triggers (`-o json` their ids)", name, projectLabel).
			Because(schedule.RefusalTriggerMissing, "name", name, "project", projectLabel)
	case len(found) == 0:
		return "", "", qlerror.New(qlerror.NotFound, "no trigger named %q; `ql triggers list` shows the triggers (`-o json` their ids)", name).
			Because(schedule.RefusalTriggerMissing, "name", name)
	case len(found) > 1:
		var projects []string
		for _, t := range found {
			projects = append(projects, t.ProjectName)
		}
		slices.Sort(projects)
		return "", "", Usagef("a trigger named %q exists in projects %s; write project/trigger, e.g. %s/%s", name, strings.Join(projects, ", "), projects[0], name)
	}
	return projectID, found[0].TriggerID, nil
}

// resolveProject returns the id of the project named or identified by s
// ("" for none).
func resolveProject(ctx context.Context, r schedule.StatusReader, s string) (string, error) {
	if s == "" || isID(s) {
		return s, nil
	}
	id, err := triggerref.ProjectID(ctx, r, s)
	if err != nil {
		return "", err
	}
	if id == "" {
		if err := outOfScope(ctx, r, s); err != nil {
			return "", err
		}
		return "", qlerror.New(qlerror.NotFound, "project %q does not exist or has no triggers; `ql triggers list` shows the projects, and --project takes a name or an id", s)
	}
	return id, nil
}

// outOfScope is the server's refusal of a project-bound token's request
// for project name, which the listing (holding that token's projects only)
// cannot tell from a project that does not exist: the command then says
// what the API says of the project, not that it is missing. Nil from a
// local store, and for every other answer.
func outOfScope(ctx context.Context, r schedule.StatusReader, name string) error {
	asker, remote := r.(interface {
		ProjectID(ctx context.Context, name string) (string, error)
	})
	if !remote {
		return nil
	}
	if _, err := asker.ProjectID(ctx, name); qlerror.ReasonOf(err) == apitoken.RefusalProjectNotInScope {
		return err
	}
	return nil
}

func isID(s string) bool { return ids.Validate("id", s) == nil }

// listedProject resolves --project of a listing (runs, triggers,
// notifications). A project that exists but has no trigger yet (a file of
// tasks alone, applied ahead of its triggers) has nothing to list, which
// is an empty list, not an error saying it does not exist; the trigger
// listing does not know it, so the definitions (where the backend can
// read them) or the server (over --api-url) are asked before the name is
// called unknown.
func listedProject(ctx context.Context, b *Backend, s string) (string, error) {
	id, err := resolveProject(ctx, b.Triggers, s)
	if qlerror.CodeOf(err) != qlerror.NotFound {
		return id, err
	}
	var found string
	var ferr error
	switch {
	case b.api != nil:
		found, ferr = b.api.ProjectID(ctx, s)
	case b.Definitions != nil:
		var d catalog.Definitions
		d, ferr = b.Definitions.ProjectDefinitions(ctx, s, 0)
		found = d.Project.ID
	default:
		return "", err
	}
	// The definitions know every project: one they lack was never
	// applied, which "has no triggers" would leave in doubt, and is said
	// as an export or `projects show` of it says it, naming the projects
	// there are (the server's answer already does). Any other failure (a
	// server of an earlier build without the route) keeps the error naming
	// what --project takes.
	if qlerror.ReasonOf(ferr) == apitoken.RefusalProjectNotInScope {
		return "", ferr
	}
	if qlerror.ReasonOf(ferr) == catalog.RefusalProjectMissing {
		if b.api == nil {
			return "", apply.ProjectMissing(ctx, b.Definitions, s, nil)
		}
		return "", ferr
	}
	if ferr != nil || found == "" {
		return "", err
	}
	return found, nil
}
