package apply

import (
	"context"
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Exported is a project's definitions file, as `ql export` prints it and
// the console shows it, with what the file cannot say.
type Exported struct {
	YAML            []byte
	Tasks, Triggers int
	Notes           []ExportNote
	// ShellTasks name, in name order, the tasks that run a shell script:
	// those the console's Edit task form may show.
	ShellTasks []string
	// Titles are the display titles of the project's tasks and triggers
	// that have one, by name, for the console to show beside the names.
	Titles catalog.Titles
}

// ExportNote is one thing about an exported project its file cannot say:
// Reason names it stably, Message is its English sentence.
type ExportNote struct {
	Reason  string
	Message string
}

// The notes of an export.
const (
	// ExportNoteArchived: the project is archived.
	ExportNoteArchived = "export_project_archived"
	// ExportNoteOlderTask: triggers pin a task revision that is not the
	// task's current one (the task was applied without them).
	ExportNoteOlderTask = "export_trigger_pins_older_task"
	// ExportNoteDisabledTask: enabled triggers pin an older revision of a
	// task that is disabled now; the file as exported is refused.
	ExportNoteDisabledTask = "export_trigger_of_disabled_task"
)

// maxListedProjects is how many names a refusal of an unknown project
// lists.
const maxListedProjects = 20

// ExportProject reads the named project's current definitions, every task
// (those no trigger runs included) and every trigger, in one snapshot, and
// writes them as a definitions file that applies back as unchanged: secrets
// stay references, as the file that published them had them. An unknown
// project's refusal names the projects there are among in, the caller's
// projects (none: every project).
func ExportProject(ctx context.Context, r catalog.DefinitionsReader, name string, in []string) (Exported, error) {
	if err := validate.Name("project", name); err != nil {
		return Exported{}, err
	}
	d, err := r.ProjectDefinitions(ctx, name, max(MaxTasks, MaxTriggers)+1)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return Exported{}, ProjectMissing(ctx, r, name, in)
	}
	if err != nil {
		return Exported{}, err
	}
	if len(d.Tasks) > MaxTasks || len(d.Triggers) > MaxTriggers {
		return Exported{}, qlerror.New(qlerror.FailedPrecondition, "project %q has more than %d tasks or %d triggers, more than one definitions file may hold, "+
			"so it cannot be exported as one file", name, MaxTasks, MaxTriggers)
	}
	out, err := Export(d.Project, d.Tasks, d.Triggers, d.Titles)
	if err != nil {
		return Exported{}, err
	}
	if len(out) > MaxFileSize {
		return Exported{}, qlerror.New(qlerror.FailedPrecondition, "project %q exports as %d bytes, more than the %d MiB one definitions file may hold, "+
			"so it cannot be exported as one file", name, len(out), MaxFileSize>>20)
	}
	ex := Exported{YAML: out, Tasks: len(d.Tasks), Triggers: len(d.Triggers), Notes: exportNotes(d), Titles: d.Titles}
	for _, t := range d.Tasks {
		if t.Spec.Command.Mode == task.ModeShell {
			ex.ShellTasks = append(ex.ShellTasks, t.Spec.Name)
		}
	}
	return ex, nil
}

// ProjectMissing refuses a project no project is named (an export, the
// API's GET /api/v1/projects/{name}), naming those there are: the command
// line has no other way to list them. A caller bound to projects gives
// them as in and is told of those only, never of another team's project;
// none is every project.
func ProjectMissing(ctx context.Context, r catalog.DefinitionsReader, name string, in []string) error {
	projects, err := r.ProjectNames(ctx, "", maxListedProjects+1, in)
	if err != nil {
		return err
	}
	names := catalog.Names(projects)
	there := "there is no project yet; `ql apply -f FILE` creates one"
	one, many := "project", "projects"
	if len(in) > 0 {
		there = "none of the projects you may act on exists yet; `ql apply -f FILE` creates one"
		one, many = "project you may act on", "projects you may act on"
	}
	switch {
	case len(names) > maxListedProjects:
		there = fmt.Sprintf("the first %d %s by name are %s", maxListedProjects, many, strings.Join(names[:maxListedProjects], ", "))
	case len(names) == 1:
		there = "the only " + one + " is " + names[0]
	case len(names) > 1:
		there = "the " + many + " are " + strings.Join(names, ", ")
	}
	return qlerror.New(qlerror.NotFound, "project %q does not exist; %s", name, there).Because(catalog.RefusalProjectMissing, "name", name)
}

// exportNotes are what d's file cannot say: that the project is archived,
// and the triggers that pin an older revision of their task than its
// current one, which a file, naming only the task, moves to the current.
func exportNotes(d catalog.Definitions) []ExportNote {
	var out []ExportNote
	if d.Project.Status == project.Archived {
		out = append(out, ExportNote{ExportNoteArchived, fmt.Sprintf("project %s is archived (status: archived in the file): none of its triggers runs, "+
			"and applying the file keeps it so; a changed task or trigger applies only with status: active", d.Project.Name)})
	}
	current := make(map[string]task.Revision, len(d.Tasks))
	for _, t := range d.Tasks {
		current[t.TaskID] = t
	}
	var older, disabled []string
	for _, tr := range d.Triggers {
		t := current[tr.TaskID]
		if tr.TaskRevision == t.Revision {
			continue
		}
		older = append(older, fmt.Sprintf("%s (task %s revision %d, current %d)", tr.Spec.Name, t.Spec.Name, tr.TaskRevision, t.Revision))
		if tr.Spec.Enabled && !t.Spec.Enabled {
			disabled = append(disabled, fmt.Sprintf("%s (task %s)", tr.Spec.Name, t.Spec.Name))
		}
	}
	if len(older) > 0 {
		out = append(out, ExportNote{ExportNoteOlderTask, "these triggers run an older revision of their task than its current one, as their task was applied " +
			"without them; a definitions file names only the task, so applying the file moves each to its task's current revision: " + listed(older)})
	}
	if len(disabled) > 0 {
		out = append(out, ExportNote{ExportNoteDisabledTask, "these enabled triggers run an older revision of a task that is disabled now, so `ql apply` " +
			"refuses the file as it is: give each enabled: false, or its task enabled: true: " + listed(disabled)})
	}
	return out
}

// listed names the first maxNoteItems of items and counts the rest.
func listed(items []string) string {
	if len(items) <= maxNoteItems {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxNoteItems], ", "), len(items)-maxNoteItems)
}
