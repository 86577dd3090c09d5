package account

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Bound reports whether the user sees and acts on the projects it names
// only; an unbound user (every owner) acts on every one.
func (u User) Bound() bool { return len(u.Projects) > 0 }

// ProjectsText is the user's projects as listings show them: "every
// project" for an unbound user.
func (u User) ProjectsText() string {
	if !u.Bound() {
		return "every project"
	}
	return strings.Join(u.Projects, ",")
}

// NormalProjects checks the projects an account of role is bound to and
// returns them sorted without repeats: an owner, who manages tokens,
// users and secrets of every project, is never bound.
func NormalProjects(role Role, raw []string) ([]string, error) {
	bound, err := apitoken.NormalProjects("user", raw)
	if err != nil {
		return nil, err
	}
	if len(bound) > 0 && role == Owner {
		return nil, ErrOwnerBound()
	}
	return bound, nil
}

// SetProjects checks projects and binds the account of that name to them
// (none: every project).
func SetProjects(ctx context.Context, m Manager, actor, name string, projects []string) error {
	bound, err := apitoken.NormalProjects("user", projects)
	if err != nil {
		return err
	}
	return m.UserSetProjects(ctx, name, bound, actor)
}

// SplitProjects reads the projects a store keeps joined by ',' (a project
// name never holds one); "" is every project.
func SplitProjects(joined string) []string {
	if joined == "" {
		return nil
	}
	return strings.Split(joined, ",")
}

// ErrOwnerBound refuses projects to an owner.
func ErrOwnerBound() error {
	return qlerror.New(qlerror.Invalid, "an owner acts on every project and is never bound to some; bind a viewer or an operator to a team's projects instead (`users create NAME --role operator --project P`)")
}

// ErrProjectNotInScope refuses a user bound to projects what lies outside
// them; what says what was asked ("project charlie", "Run ID"), never the
// name of another project the user may not see.
func ErrProjectNotInScope(name string, projects []string, what string) error {
	joined := strings.Join(projects, ",")
	boundTo := "the projects " + strings.Join(projects, ", ")
	if len(projects) == 1 {
		boundTo = "the project " + projects[0]
	}
	return qlerror.New(qlerror.PermissionDenied, "user %q is bound to %s and may not see or act on %s; sign in as a user bound to its project, or ask an owner to bind this one to it too (`users set-projects %s --project PROJECT`)",
		name, boundTo, what, name).Because(apitoken.RefusalProjectNotInScope, "who", "user", "user", name, "projects", joined)
}
