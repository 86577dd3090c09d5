package apply

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalCreateOnlyWouldChange is the reason of an apply that may only
// create (`ql apply --create-only`, the API's ?createOnly=true) whose file
// would change something that exists: project, objects (each changed
// object with its changed fields, "; "-separated), count.
const RefusalCreateOnlyWouldChange qlerror.Reason = "create_only_would_change"

// CheckCreateOnly refuses results that update anything: a team
// adding its tasks and triggers to a shared project applies only what is
// new, and a file that would change an object others publish, or clear
// the project's title, is refused naming each one, nothing written. An
// object the file holds as it is stays unchanged and is not refused, so
// the same file applied again succeeds.
func CheckCreateOnly(project string, results []Result) error {
	var changed []string
	for _, r := range results {
		if r.Change != catalog.Updated {
			continue
		}
		s := r.Kind + " " + r.Name
		if len(r.Fields) > 0 {
			s += " (" + strings.Join(r.Fields, ", ") + ")"
		}
		changed = append(changed, s)
	}
	if len(changed) == 0 {
		return nil
	}
	list := strings.Join(changed, "; ")
	return qlerror.New(qlerror.PreconditionFailed,
		"the file would change %s of project %s that exist: %s; an apply that only creates (--create-only) changes nothing that exists: "+
			"leave them out of the file or write them as they are (`ql export %s` prints them; a file without the project's title clears it), "+
			"or apply without --create-only to change them", plural.Count(len(changed), "object", "objects"), project, list, project).
		Because(RefusalCreateOnlyWouldChange, "project", project, "objects", list, "count", len(changed))
}
