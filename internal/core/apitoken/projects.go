package apitoken

import (
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// RefusalProjectNotInScope is a request of a project-bound token for a
// project it is not bound to, or for a route that is not any one
// project's (secrets, tokens, metrics).
const RefusalProjectNotInScope qlerror.Reason = "project_not_in_scope"

// MaxProjects bounds the projects one token may be bound to: past a few
// dozen, an installation of its own serves the team better.
const MaxProjects = 64

// Bound reports whether the token acts on the projects it names only; an
// unbound token (no project given when it was made) acts on every one.
func (t Token) Bound() bool { return len(t.Projects) > 0 }

// Covers reports whether the token may act on the project named project.
func (t Token) Covers(project string) bool {
	return !t.Bound() || slices.Contains(t.Projects, project)
}

// ProjectsText is the token's projects as listings show them: "every
// project" for an unbound token.
func (t Token) ProjectsText() string {
	if !t.Bound() {
		return "every project"
	}
	return strings.Join(t.Projects, ",")
}

// boundText is what a bound token is bound to, in a sentence: "the
// project alpha", "the projects alpha, beta".
func (t Token) boundText() string {
	if len(t.Projects) == 1 {
		return "the project " + t.Projects[0]
	}
	return "the projects " + strings.Join(t.Projects, ", ")
}

// NormalProjects checks the project names a token or a console user
// (what) is bound to and returns them sorted without repeats, so that two
// stores list them alike.
func NormalProjects(what string, raw []string) ([]string, error) {
	if len(raw) > MaxProjects {
		return nil, qlerror.New(qlerror.Invalid, "a %s may be bound to at most %d projects, not %d; an installation of its own suits a team with more", what, MaxProjects, len(raw)).Because(validate.RefusalTooMany, "field", "project", "count", len(raw), "limit", MaxProjects)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(raw))
	for _, p := range raw {
		if err := validate.Name("project", p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ErrProjectNotInScope refuses a project-bound token what lies outside
// its projects; what says what was asked ("project charlie", "trigger
// ID"), never the name of another project the token may not see.
func ErrProjectNotInScope(t Token, what string) error {
	return qlerror.New(qlerror.PermissionDenied, "token %q is bound to %s and may not act on %s; use a token bound to its project (`ql tokens create NAME --scope %s --project PROJECT`) or one bound to no project",
		t.Name, t.boundText(), what, t.Scope).Because(RefusalProjectNotInScope, "who", "token", "token", t.Name, "projects", strings.Join(t.Projects, ","))
}

// ErrNoOneProjects refuses a project-bound token a route that is no one
// project's (route is its method and path): only a token of every
// project may use it.
func ErrNoOneProjects(t Token, route string) error {
	return qlerror.New(qlerror.PermissionDenied, "token %q is bound to %s and may not use %s, which is no one project's; use a token bound to no project (`ql tokens create NAME --scope SCOPE` without --project)",
		t.Name, t.boundText(), route).Because(RefusalProjectNotInScope, "who", "token", "token", t.Name, "projects", strings.Join(t.Projects, ","))
}
