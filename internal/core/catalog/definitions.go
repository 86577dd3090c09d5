package catalog

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Definitions are a project with the current revisions of its tasks and
// triggers, each list in name order: what an export writes.
type Definitions struct {
	Project  project.Project
	Tasks    []task.Revision
	Triggers []trigger.Revision
	// Titles are the display titles of the project's tasks and triggers
	// that have one, read in the same snapshot.
	Titles Titles
}

// ProjectName is a project's id, name, display title ("" none), status
// and whether it is paused as a whole, as a list of the projects there
// are gives them.
type ProjectName struct {
	ID, Name, Title string
	Status          project.Status
	Paused          bool
}

// Names are the names of ps, in their order.
func Names(ps []ProjectName) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// DefinitionsReader reads a project's definitions whole, for an export.
// Both cluster roles that read the catalog (admin, runtime) may.
type DefinitionsReader interface {
	// ProjectDefinitions reads the named project and the current
	// revisions of the first limit of its tasks and the first limit of
	// its triggers by name, all in one snapshot, so every trigger's task
	// is among the tasks a complete read returns; NotFound
	// (RefusalProjectMissing) when no project has that name.
	ProjectDefinitions(ctx context.Context, name string, limit int) (Definitions, error)
	// ProjectNames returns the first limit projects' names, each with
	// its display title, in name order, of those whose names sort after
	// after ("" from the first: a page's cursor is its last name). in
	// keeps the projects of those names only (a bound token's or console
	// user's; nil every project), filtered before the limit cuts, so the
	// list is full of theirs however many other projects sort first.
	ProjectNames(ctx context.Context, after string, limit int, in []string) ([]ProjectName, error)
	// ProjectNameOf returns the name of the project whose id is id, ""
	// when no project has it (an address naming a project by its id, as
	// older links do); Invalid when id is not an id.
	ProjectNameOf(ctx context.Context, id string) (string, error)
}
