package apply

import (
	"context"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
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

// otherTasksFit refuses a project env with which a task of the project
// that doc leaves out could not start (task.Command.CheckExecSizeIn): a
// project may be split over several files, and the tasks of this one
// were checked as it was read. Called only when the file changes the
// env, it reads the project whole in the publishing transaction, where
// the store's transaction can (catalog.DefinitionsTx).
func otherTasksFit(ctx context.Context, tx catalog.Tx, doc *Document) error {
	dt, ok := tx.(catalog.DefinitionsTx)
	if !ok || len(doc.Env) == 0 {
		return nil
	}
	d, err := dt.ProjectDefinitions(ctx, doc.Project, max(MaxTasks, MaxTriggers))
	if err != nil {
		return err
	}
	for _, t := range d.Tasks {
		if slices.ContainsFunc(doc.Tasks, func(td TaskDoc) bool { return td.Spec.Name == t.Spec.Name }) {
			continue
		}
		if err := t.Spec.Command.CheckExecSizeIn(doc.Env); err != nil {
			return qlerror.Wrap(qlerror.CodeOf(err), err, "task %q of project %s, which this file leaves out, could not start with the file's project env", t.Spec.Name, doc.Project)
		}
	}
	return nil
}
