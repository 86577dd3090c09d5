package console

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// newTaskData is what the New task form shows: the fields as given (the
// zone the viewer's until one is given), the projects to choose from, and
// the errors of the last try.
type newTaskData struct {
	apply.NewTask
	Projects []catalog.ProjectName
	Errors   []string
	// EnvErrors are the env rows' mistakes, said beside the env editor;
	// EnvEditor is the editor as shown.
	EnvErrors []string
	EnvEditor envEditor
}

// originNewTask marks a definitions file the New task form wrote, through
// its preview and apply: the note that a file leaves the project's other
// triggers running is about a file someone wrote whole, not this one.
const originNewTask = "newtask"

// newTaskForm shows the New task form: a shell script and the cron
// trigger that runs it, in a project (?project= chooses it), for a user
// who has no definitions file to edit. ?task=, ?script= and ?workdir=
// fill those fields in (the Scripts page's link from a script), which
// the user still checks and previews.
func (c *Console) newTaskForm(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	q := r.URL.Query()
	d := newTaskData{NewTask: apply.NewTask{Project: strings.TrimSpace(q.Get("project")), Task: strings.TrimSpace(q.Get("task")),
		Script: q.Get("script"), WorkingDir: strings.TrimSpace(q.Get("workdir"))}}
	c.renderNewTask(w, r, s, http.StatusOK, d)
}

// newTaskPreview writes the form's task and trigger as a definitions file
// of their own (apply.NewTaskFile) and previews it as the definitions page
// previews a file, with the button to apply it; a mistake in a field is
// said on the form, which keeps what was typed.
func (c *Console) newTaskPreview(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	d := newTaskData{NewTask: apply.NewTask{Project: field("project"), Task: field("task"), Script: strings.TrimRight(textArea(r, "script"), " \t\n"),
		Timeout: field("timeout"), Trigger: field("trigger"), Cron: field("cron"), Timezone: field("timezone"), Title: field("title"),
		WorkingDir: field("workdir")}}
	d.Env, _ = envRowsOf(r)
	if r.PostFormValue("back") != "" || r.PostFormValue(envAddField) != "" {
		// The preview's way back: the form as its user filled it, not the
		// file it wrote, which is no project's definitions yet. Another
		// env row, asked for without a script to add it in the page, is
		// the form as filled with an empty row more.
		c.renderNewTask(w, r, s, http.StatusOK, d)
		return
	}
	file := d.NewTask
	var unchosen []string
	file.Env, unchosen = envUnchosen(lang(r), d.Env)
	text, err := apply.NewTaskFile(r.Context(), c.cfg.Export, file)
	c.previewTaskForm(w, r, s, text, err, d.label, d.blank(), unchosen, formOrigin{form: originNewTask, newTask: &d.NewTask}, func(errs, envErrs []string) {
		d.Errors, d.EnvErrors = errs, envErrs
		c.renderNewTask(w, r, s, http.StatusBadRequest, d)
	})
}

// blank are the labels of the required fields d leaves empty (a script
// of only blanks is empty): each is said to be required, beside the
// mistakes of the fields that were filled in.
func (d newTaskData) blank() []string {
	var out []string
	for _, f := range []struct{ label, value string }{
		{"nt.project", d.Project}, {"nt.task", d.Task}, {"nt.script", d.Script}, {"nt.cron", d.Cron}, {"nt.timezone", d.Timezone},
	} {
		if f.value == "" {
			out = append(out, f.label)
		}
	}
	return out
}

// newTaskShown is the task and the trigger a New task file creates, as
// its preview shows them: the script and how long it may run, the cron
// expression and its zone.
type newTaskShown struct {
	Task, Shell, Script, Timeout string
	// WorkingDir is the directory the script starts in, "" for a fresh
	// empty one.
	WorkingDir              string
	Trigger, Cron, Timezone string
	// Status and Fires are the trigger as it will stand and its next
	// fires from the preview on, so that a schedule is checked by its
	// times before it is applied (*/30 in the seconds' place fires twice
	// a minute, not every half hour).
	Status schedule.TriggerStatus
	Fires  []view.FireTime
}

// shownNewTask is what doc, a New task form's file, creates, its
// trigger's next fires after nowMs; nil for a file of another shape (one
// sent to the apply by hand).
func shownNewTask(doc *apply.Document, nowMs int64) *newTaskShown {
	if len(doc.Tasks) != 1 || len(doc.Triggers) != 1 {
		return nil
	}
	tk, tg := doc.Tasks[0].Spec, doc.Triggers[0].Spec
	timeout := time.Duration(tk.Command.TimeoutMs) * time.Millisecond
	if timeout == 0 {
		timeout = task.DefaultTimeout
	}
	st := schedule.TriggerStatus{Name: tg.Name, Enabled: tg.Enabled, Cron: tg.Cron}
	return &newTaskShown{Task: tk.Name, Shell: tk.Command.Shell, Script: tk.Command.Script, Timeout: validate.Duration(timeout), WorkingDir: tk.Command.WorkingDir,
		Trigger: tg.Name, Cron: tg.Cron.Expression, Timezone: tg.Cron.Timezone, Status: st, Fires: upcoming(st, nowMs)}
}

func (c *Console) renderNewTask(w http.ResponseWriter, r *http.Request, s *session, status int, d newTaskData) {
	var err error
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Projects = unarchived(d.Projects)
	d.EnvEditor = c.newEnvEditor(lang(r), d.Env, d.EnvErrors)
	c.render(w, r, status, "newtask", s, d)
}

// newTaskFields are the form's fields' labels by the path of the file's
// field apply.NewTaskFile writes each to: the file's errors name the
// file's fields (task.timeout), which the form's user never saw.
var newTaskFields = map[string]string{
	"project": "nt.project", "project.name": "nt.project",
	"tasks[0].name": "nt.task", "tasks[0].script": "nt.script", "tasks[0].timeout": "nt.timeout",
	"triggers[0].name": "nt.trigger", "triggers[0].cron": "nt.cron", "triggers[0].timezone": "nt.timezone",
	"tasks[0].title": "nt.title", "triggers[0].title": "nt.title", "tasks[0].workingDir": "nt.workdir",
}

// label is the key of the label of the form's field that the file's
// field at path was written from, "" when none was. A trigger the form
// names after its task (its name left empty) has the task's name, which
// the user typed as the task's.
func (d newTaskData) label(path string) string {
	if path == "triggers[0].name" && d.Trigger == "" {
		return "nt.task"
	}
	if label := envLabel(path); label != "" {
		return label
	}
	return newTaskFields[path]
}

// fieldSentence is le's sentence in l started with label, the form
// field's, in place of the entry and the file's field the sentence starts
// with (`task "x": task.timeout: `, 任务名称“x”…); a sentence that names
// no field (cron 表达式的小时字段…) is started with label all the same.
func fieldSentence(l, label string, le *apply.LocatedError) string {
	msg, worded := sentence(l, le)
	if !worded {
		msg = le.Detail
		if le.Lead {
			msg = strings.TrimPrefix(msg, fmt.Sprintf("%s %q: ", le.About.Kind, le.About.Name))
		}
	}
	if field := qlerror.ParamsOf(le)["field"]; field != "" {
		for _, named := range []string{field + ": ", field + "：", paramWords[l]["field."+field]} {
			if rest, ok := strings.CutPrefix(msg, named); ok && rest != msg {
				msg = rest
				break
			}
		}
	}
	return label + tr(l, "def.sep") + msg
}
