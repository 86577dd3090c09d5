package apply

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/task"
)

// envChanges is a change of a project's env as a project update names
// it, by the variables' names alone — a value may be a credential
// written in clear, and the change is shown by a dry run and kept in the
// audit trail: "env (+A, ~B, -C)" for A added, B set to another value or
// secret, C removed: the added and changed in name order, then the
// removed.
func envChanges(from, to []task.EnvVar) string {
	was := make(map[string]task.EnvVar, len(from))
	for _, e := range from {
		was[e.Name] = e
	}
	var parts []string
	for _, e := range to {
		old, ok := was[e.Name]
		switch {
		case !ok:
			parts = append(parts, "+"+e.Name)
		case old != e:
			parts = append(parts, "~"+e.Name)
		}
		delete(was, e.Name)
	}
	for _, e := range from {
		if _, gone := was[e.Name]; gone {
			parts = append(parts, "-"+e.Name)
		}
	}
	return "env (" + strings.Join(parts, ", ") + ")"
}
