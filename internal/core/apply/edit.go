package apply

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// EditTask is a shell task's script and timeout as the console's Edit
// task form shows and sends them, with the task revision it showed.
type EditTask struct {
	Project, Task string
	Revision      int64
	Script        string
	// Timeout is a duration as a file writes it; "" is the default.
	Timeout string
	// Shell runs the script ("" for /bin/sh): shown, not edited.
	Shell string
	// Title is the task's display title ("" none); the file gives the
	// task this one, clearing it when "".
	Title string
	// WorkingDir is the directory the script starts in, as a file writes
	// it; "" is the default, a fresh empty directory per attempt.
	WorkingDir string
	// Env are the task's environment variables as the form shows them;
	// EnvSent says the form sent them: a request without them (EnvSent
	// false) keeps the task's env as it is.
	Env     []EnvRow
	EnvSent bool
}

// EditSchedule is a trigger's cron and time zone as the console's Edit
// schedule form shows and sends them, with the trigger revision it
// showed.
type EditSchedule struct {
	Project, Trigger string
	Revision         int64
	Cron, Timezone   string
	// Task is the trigger's task: shown, not edited.
	Task string
	// Title is the trigger's display title ("" none), as EditTask's.
	Title string
}

// The refusals of the edit forms: kind ("task" or "trigger"), name,
// project.
const (
	// RefusalNoSuchEntry is a task or trigger its project does not have
	// (deleted, renamed, or a mistyped address).
	RefusalNoSuchEntry qlerror.Reason = "defs_edit_no_such_entry"
	// RefusalChangedSince is an entry whose revision is not the one the
	// form showed: someone published it meanwhile. Also shown, current.
	RefusalChangedSince qlerror.Reason = "defs_edit_changed_since"
	// RefusalArgvTask is a task that runs a command, not a script.
	RefusalArgvTask qlerror.Reason = "defs_edit_argv_task"
	// RefusalScriptNotShown is a script a text box cannot give back as it
	// is (a carriage return, a control character).
	RefusalScriptNotShown qlerror.Reason = "defs_edit_script_not_shown"
	// RefusalPinsOlderTask is a trigger that runs an older revision of its
	// task than the current one, which a file naming the task would move.
	RefusalPinsOlderTask qlerror.Reason = "defs_edit_pins_older_task"
)

// TaskToEdit is the named task's current revision as the Edit task form
// shows it; refused (each saying to edit the project's definitions file)
// for a task that runs a command rather than a shell script, or whose
// script a text box would not give back as it is.
func TaskToEdit(ctx context.Context, r catalog.DefinitionsReader, projectName, taskName string) (EditTask, error) {
	d, cur, err := taskOf(ctx, r, projectName, taskName)
	if err != nil {
		return EditTask{}, err
	}
	e, err := editTaskOf(projectName, cur)
	e.Title = d.Titles.Tasks[taskName]
	return e, err
}

// EditTaskFile writes the definitions file that gives e's task e's script,
// working directory, timeout and (when sent) env: the project with its status and that task alone, every
// other field of it as exported. Applying it changes nothing else: a file
// leaves the tasks and triggers it does not name as they are (the task's
// triggers that pin its current revision follow it to the new one), and
// the project's notifications. A task published since the form showed
// e.Revision is refused, so the form cannot undo that change; the
// revision the file was written from is returned, for the apply to check
// again (Document.Expect).
func EditTaskFile(ctx context.Context, r catalog.DefinitionsReader, e EditTask) ([]byte, []Expected, error) {
	d, cur, err := taskOf(ctx, r, e.Project, e.Task)
	if err != nil {
		return nil, nil, err
	}
	if cur.Revision != e.Revision {
		return nil, nil, changedSince("task", e.Task, e.Project, e.Revision, cur.Revision)
	}
	if _, err := editTaskOf(e.Project, cur); err != nil {
		return nil, nil, err
	}
	t := exportTaskSpec(cur.Spec)
	script := e.Script
	t.Script, t.Timeout, t.Title, t.WorkingDir = &script, e.Timeout, e.Title, e.WorkingDir
	if e.EnvSent {
		t.Env = envYAML(e.Env)
	}
	doc := statusOnly(d.Project)
	doc.Tasks = []exportTask{t}
	text, err := encodeExport(doc)
	return text, []Expected{{Kind: "task", Name: e.Task, Revision: cur.Revision}}, err
}

// ScheduleToEdit is the named trigger's current revision as the Edit
// schedule form shows it; refused for a trigger that pins an older
// revision of its task, which the form's file would move to the current.
func ScheduleToEdit(ctx context.Context, r catalog.DefinitionsReader, projectName, triggerName string) (EditSchedule, error) {
	d, cur, tk, err := triggerOf(ctx, r, projectName, triggerName)
	if err != nil {
		return EditSchedule{}, err
	}
	return EditSchedule{Project: projectName, Trigger: triggerName, Revision: cur.Revision, Cron: cur.Spec.Cron.Expression,
		Timezone: cur.Spec.Cron.Timezone, Task: tk.Spec.Name, Title: d.Titles.Triggers[triggerName]}, nil
}

// EditScheduleFile writes the definitions file that gives e's trigger e's
// cron expression and time zone: the project with its status, that
// trigger with every other field as exported, and its task exactly as
// exported (a file's trigger names a task of the file), which applies as
// unchanged. A trigger published since the form showed e.Revision is
// refused, as is one pinning an older revision of its task; the
// revisions of the trigger and of the task the file was written from are
// returned, for the apply to check again (Document.Expect): a task
// changed meanwhile would otherwise be set back by the file's copy.
func EditScheduleFile(ctx context.Context, r catalog.DefinitionsReader, e EditSchedule) ([]byte, []Expected, error) {
	d, cur, tk, err := triggerOf(ctx, r, e.Project, e.Trigger)
	if err != nil {
		return nil, nil, err
	}
	if cur.Revision != e.Revision {
		return nil, nil, changedSince("trigger", e.Trigger, e.Project, e.Revision, cur.Revision)
	}
	tr := exportTriggerSpec(tk.Spec.Name, cur.Spec)
	tr.Cron, tr.Timezone, tr.Title = e.Cron, e.Timezone, e.Title
	doc := statusOnly(d.Project)
	task := exportTaskSpec(tk.Spec)
	task.Title = d.Titles.Tasks[tk.Spec.Name]
	doc.Tasks = []exportTask{task}
	doc.Triggers = []exportTrigger{tr}
	text, err := encodeExport(doc)
	return text, []Expected{{Kind: "trigger", Name: e.Trigger, Revision: cur.Revision}, {Kind: "task", Name: tk.Spec.Name, Revision: tk.Revision}}, err
}

// statusOnly is the file of p that names its status, title, cap and env
// and nothing else: an archived project's file says so, so that the form
// shows why an apply of it is refused, and a file leaving a title, a cap
// or an env out clears it.
func statusOnly(p project.Project) exportDoc {
	doc := exportDoc{Project: p.Name, Title: p.Title, MaxRunning: p.MaxRunning, Env: exportEnv(p.Env)}
	if p.Status != project.Active {
		doc.Status = string(p.Status)
	}
	return doc
}

// editTaskOf is cur as the Edit task form shows it, refused where the
// form cannot: a text box gives its text back with CR LF line breaks
// (read back as LF) and cannot hold most control characters.
func editTaskOf(projectName string, cur task.Revision) (EditTask, error) {
	c := cur.Spec.Command
	if c.Mode != task.ModeShell {
		return EditTask{}, qlerror.New(qlerror.FailedPrecondition, "task %q of project %q runs a command, not a shell script, which this form cannot show: "+
			"edit it in the project's definitions file", cur.Spec.Name, projectName).Because(RefusalArgvTask, "kind", "task", "name", cur.Spec.Name, "project", projectName)
	}
	if !shownAsIs(c.Script) {
		return EditTask{}, qlerror.New(qlerror.FailedPrecondition, "task %q of project %q has a script with a carriage return or another control character, "+
			"which a text box cannot give back as it is: edit it in the project's definitions file", cur.Spec.Name, projectName).
			Because(RefusalScriptNotShown, "kind", "task", "name", cur.Spec.Name, "project", projectName)
	}
	if err := envShownAsIs(projectName, cur); err != nil {
		return EditTask{}, err
	}
	return EditTask{Project: projectName, Task: cur.Spec.Name, Revision: cur.Revision, Script: c.Script, Shell: c.Shell, WorkingDir: c.WorkingDir, Timeout: timeoutText(c.TimeoutMs),
		Env: EnvRows(c.Env), EnvSent: true}, nil
}

// timeoutText is a task's timeout as the Edit task form shows it: "" for
// the default, which the form leaves empty.
func timeoutText(ms int64) string {
	if ms == 0 || ms == task.DefaultTimeout.Milliseconds() {
		return ""
	}
	return millis(ms)
}

// Edited is what the Edit task form sent, read back from the file it
// wrote (d, of project projectName): the script, timeout, title and env, so
// that a form refused at its confirmation can show them as typed.
func (d TaskDoc) Edited(projectName string) EditTask {
	c := d.Spec.Command
	return EditTask{Project: projectName, Task: d.Spec.Name, Script: c.Script, Shell: c.Shell, WorkingDir: c.WorkingDir, Timeout: timeoutText(c.TimeoutMs), Title: d.Title,
		Env: EnvRows(c.Env), EnvSent: true}
}

// Edited is what the Edit schedule form sent, read back from the file it
// wrote, as TaskDoc.Edited.
func (d TriggerDoc) Edited(projectName string) EditSchedule {
	return EditSchedule{Project: projectName, Trigger: d.Spec.Name, Cron: d.Spec.Cron.Expression, Timezone: d.Spec.Cron.Timezone, Task: d.TaskName, Title: d.Title}
}

// shownAsIs says whether a text box shows s and sends it back unchanged,
// its line breaks read back as LF.
func shownAsIs(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' })
}

// taskOf reads projectName's definitions and its task named taskName.
func taskOf(ctx context.Context, r catalog.DefinitionsReader, projectName, taskName string) (catalog.Definitions, task.Revision, error) {
	d, err := definitionsOf(ctx, r, projectName)
	if err != nil {
		return d, task.Revision{}, err
	}
	for _, t := range d.Tasks {
		if t.Spec.Name == taskName {
			return d, t, nil
		}
	}
	return d, task.Revision{}, noSuchEntry("task", taskName, projectName)
}

// triggerOf reads projectName's definitions, its trigger named
// triggerName and that trigger's task, refusing a trigger that pins an
// older revision of its task than the current one.
func triggerOf(ctx context.Context, r catalog.DefinitionsReader, projectName, triggerName string) (catalog.Definitions, trigger.Revision, task.Revision, error) {
	d, err := definitionsOf(ctx, r, projectName)
	if err != nil {
		return d, trigger.Revision{}, task.Revision{}, err
	}
	for _, tr := range d.Triggers {
		if tr.Spec.Name != triggerName {
			continue
		}
		for _, t := range d.Tasks {
			if t.TaskID != tr.TaskID {
				continue
			}
			if t.Revision != tr.TaskRevision {
				return d, tr, t, qlerror.New(qlerror.FailedPrecondition, "trigger %q of project %q runs revision %d of task %q, not its current revision %d, "+
					"and a file naming the task would move it to the current one: edit it in the project's definitions file", triggerName, projectName,
					tr.TaskRevision, t.Spec.Name, t.Revision).Because(RefusalPinsOlderTask, "kind", "trigger", "name", triggerName, "project", projectName, "task", t.Spec.Name)
			}
			return d, tr, t, nil
		}
	}
	return d, trigger.Revision{}, task.Revision{}, noSuchEntry("trigger", triggerName, projectName)
}

// definitionsOf reads the named project whole, as an export does.
func definitionsOf(ctx context.Context, r catalog.DefinitionsReader, projectName string) (catalog.Definitions, error) {
	if err := validate.Name("project", projectName); err != nil {
		return catalog.Definitions{}, err
	}
	return r.ProjectDefinitions(ctx, projectName, max(MaxTasks, MaxTriggers))
}

func noSuchEntry(kind, name, projectName string) error {
	return qlerror.New(qlerror.NotFound, "project %q has no %s named %q (deleted or renamed since): open it again from the triggers list", projectName, kind, name).
		Because(RefusalNoSuchEntry, "kind", kind, "name", name, "project", projectName)
}

func changedSince(kind, name, projectName string, shown, current int64) error {
	return qlerror.New(qlerror.Conflict, "%s %q of project %q changed since you opened this form (revision %d, now %d), so it was not changed: "+
		"the form now shows the current revision; make your change to it again", kind, name, projectName, shown, current).
		Because(RefusalChangedSince, "kind", kind, "name", name, "project", projectName, "shown", strconv.FormatInt(shown, 10), "current", strconv.FormatInt(current, 10))
}

// Expected is the revision an entry of a file had when the file was
// written from it (an edit form's file): kind "task" or "trigger", or
// "project" with the project's state (projectState) for its revision.
type Expected struct {
	Kind, Name string
	Revision   int64
}

// String is e as ParseExpected reads it ("task report 3"): names have no
// spaces.
func (e Expected) String() string { return fmt.Sprintf("%s %s %d", e.Kind, e.Name, e.Revision) }

// ParseExpected reads e.String(); ok is false for anything else.
func ParseExpected(s string) (e Expected, ok bool) {
	f := strings.Fields(s)
	if len(f) != 3 || (f[0] != "task" && f[0] != "trigger" && f[0] != "project") {
		return Expected{}, false
	}
	rev, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || rev < 1 {
		return Expected{}, false
	}
	return Expected{Kind: f[0], Name: f[1], Revision: rev}, true
}

// checkExpected refuses doc when an entry it expects (Document.Expect) is
// not at that revision in tasks and triggers, as the apply's transaction
// read them: a later writer's publish then conflicts with this one's, so
// no change made since the file was written is undone.
func checkExpected(doc *Document, tasks map[string]task.Revision, triggers map[string]trigger.Revision) error {
	for _, e := range doc.Expect {
		if e.Kind == "project" {
			continue
		}
		var current int64
		var ok bool
		if e.Kind == "task" {
			var t task.Revision
			t, ok = tasks[e.Name]
			current = t.Revision
		} else {
			var tr trigger.Revision
			tr, ok = triggers[e.Name]
			current = tr.Revision
		}
		if !ok {
			return noSuchEntry(e.Kind, e.Name, doc.Project)
		}
		if current != e.Revision {
			return changedSince(e.Kind, e.Name, doc.Project, e.Revision, current)
		}
	}
	return nil
}
