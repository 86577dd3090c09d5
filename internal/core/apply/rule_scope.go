package apply

import (
	"context"
	"fmt"
	"slices"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// checkRuleScopes refuses a notification rule's tasks or triggers entry
// that names no task or trigger of its project, so that a misspelt name is
// caught rather than leaving the rule silent. The notifications block
// speaks for the whole project, which may be split over several files, so
// a name is taken when the file defines it or when the project already
// has it (from another file, applied before); a project the apply creates
// has only the file's. Only the file's own settings are checked: a file
// without the block changes none.
func checkRuleScopes(ctx context.Context, tx catalog.Tx, projectID string, created bool, doc *Document) error {
	if !doc.HasNotifications {
		return nil
	}
	inFile := map[string]map[string]bool{"task": {}, "trigger": {}}
	for _, t := range doc.Tasks {
		inFile["task"][t.Spec.Name] = true
	}
	for _, t := range doc.Triggers {
		inFile["trigger"][t.Spec.Name] = true
	}
	type ref struct {
		field, kind, name string
	}
	var refs []ref
	missing := map[string][]string{}
	for i, r := range doc.Notifications.Rules {
		for _, sc := range []struct {
			kind, key string
			names     []string
		}{{"task", "tasks", r.Tasks}, {"trigger", "triggers", r.Triggers}} {
			for _, name := range sc.names {
				if !inFile[sc.kind][name] {
					refs = append(refs, ref{fmt.Sprintf("notifications.rules[%d].%s", i, sc.key), sc.kind, name})
					if !slices.Contains(missing[sc.kind], name) {
						missing[sc.kind] = append(missing[sc.kind], name)
					}
				}
			}
		}
	}
	if len(refs) == 0 {
		return nil
	}
	known := map[string]map[string]bool{"task": {}, "trigger": {}}
	if !created && len(missing["task"]) > 0 {
		tasks, err := tx.TasksByName(ctx, projectID, missing["task"])
		if err != nil {
			return err
		}
		for name := range tasks {
			known["task"][name] = true
		}
	}
	if !created && len(missing["trigger"]) > 0 {
		triggers, err := tx.TriggersByName(ctx, projectID, missing["trigger"])
		if err != nil {
			return err
		}
		for name := range triggers {
			known["trigger"][name] = true
		}
	}
	for _, r := range refs {
		if !known[r.kind][r.name] {
			return qlerror.New(qlerror.Invalid, "%s: %q is not a %s of this file nor of project %q; name a %s of the project (one another file defines counts once that file is applied)",
				r.field, r.name, r.kind, doc.Project, r.kind).
				Because(RefusalRuleScopeUnknown, "field", r.field, "kind", r.kind, "name", r.name, "project", doc.Project)
		}
	}
	return nil
}
