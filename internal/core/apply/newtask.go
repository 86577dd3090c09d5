package apply

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// NewTask is a shell script and the cron trigger that runs it, as the
// console's New task form gives them: what a first task needs, every other
// field left to its default (an edit of the project's file sets those).
type NewTask struct {
	Project, Task, Script string
	// Timeout is a duration as a file writes it; "" keeps the default.
	Timeout string
	// Trigger is the trigger's name; "" names it after the task.
	Trigger, Cron, Timezone string
	// Title is the display title of the task and of its trigger ("" none),
	// checked as a file's titles are.
	Title string
	// WorkingDir is the directory the script starts in, as a file writes
	// it; "" keeps the default, a fresh empty directory per attempt.
	WorkingDir string
	// Env are the task's environment variables, in the order given.
	Env []EnvRow
}

// RefusalNameTaken is a new task's or trigger's name its project already
// has: kind ("task" or "trigger"), name, project.
const RefusalNameTaken qlerror.Reason = "defs_name_taken"

// NewTaskFile writes the definitions file that adds t to its project (and
// creates the project when none has its name): the project with t's task
// and trigger and nothing else. Applying it changes nothing else: a file
// leaves the tasks and triggers it does not name as they are, and the
// project's notifications when it gives none; it carries the project's
// status, which a file that omits it would set active, and its title,
// which such a file would clear. A file of only the
// new entries, rather than the project's whole export with them added, also
// cannot undo a change another user makes to the project meanwhile. A task
// or trigger name the project already has is refused, naming it: the file
// would change that entry, which the form never showed. The fields are
// checked where the file is (Parse), each error naming its field, the
// project's name too.
func NewTaskFile(ctx context.Context, r catalog.DefinitionsReader, t NewTask) ([]byte, error) {
	if t.Trigger == "" {
		t.Trigger = t.Task
	}
	doc := exportDoc{Project: t.Project}
	// A name no project can have is written all the same (no project has
	// it to look up), so that Parse says what is wrong with it beside every
	// other field's mistake, not one try after another.
	if validate.Name("project", t.Project) == nil {
		d, err := r.ProjectDefinitions(ctx, t.Project, max(MaxTasks, MaxTriggers)+1)
		switch {
		case qlerror.ReasonOf(err) == catalog.RefusalProjectMissing:
		case err != nil:
			return nil, err
		default:
			if d.Project.Status != project.Active {
				doc.Status = string(d.Project.Status)
			}
			// A file leaving the project's title, cap or env out would
			// clear it.
			doc.Title, doc.MaxRunning, doc.Env = d.Project.Title, d.Project.MaxRunning, exportEnv(d.Project.Env)
			for _, x := range d.Tasks {
				if x.Spec.Name == t.Task {
					return nil, nameTaken("task", t.Task, t.Project)
				}
			}
			for _, x := range d.Triggers {
				if x.Spec.Name == t.Trigger {
					return nil, nameTaken("trigger", t.Trigger, t.Project)
				}
			}
		}
	}
	script := t.Script
	doc.Tasks = []exportTask{{Name: t.Task, Script: &script, Timeout: t.Timeout, Title: t.Title, WorkingDir: t.WorkingDir, Env: envYAML(t.Env)}}
	doc.Triggers = []exportTrigger{{Name: t.Trigger, Task: t.Task, Cron: t.Cron, Timezone: t.Timezone, Misfire: string(trigger.FireOnce), Title: t.Title}}
	return encodeExport(doc)
}

func nameTaken(kind, name, projectName string) error {
	return qlerror.New(qlerror.Conflict, "project %q already has a %s named %q: choose another name, or change that %s in the project's definitions file",
		projectName, kind, name, kind).Because(RefusalNameTaken, "kind", kind, "name", name, "project", projectName)
}
