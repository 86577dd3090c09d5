package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// originEditTask marks a definitions file the Edit task form wrote: like
// New task's, it names only what its form showed.
const originEditTask = "edittask"

// editTaskData is what the Edit task form shows: the task's script,
// timeout and env (as sent, or as stored), the errors of the last try,
// and, for a task changed since the form was shown, the current task with
// every field that was sent beside it (Yours: its title, script, timeout
// and env) to make the change again.
type editTaskData struct {
	apply.EditTask
	Errors []string
	// EnvErrors are the env rows' mistakes, said beside the env editor;
	// EnvEditor is the editor as shown.
	EnvErrors []string
	EnvEditor envEditor
	Changed   bool
	Yours     apply.EditTask
	// Elsewhere says why this form cannot show the task: the page links
	// to the project's definitions file instead.
	Elsewhere string
}

// editTaskFields are the Edit task form's fields' labels by the path of
// the file's field apply.EditTaskFile writes each to.
var editTaskFields = map[string]string{"tasks[0].script": "et.script", "tasks[0].timeout": "nt.timeout", "tasks[0].title": "nt.title",
	"tasks[0].workingDir": "nt.workdir"}

func editTaskLabel(path string) string {
	if label := envLabel(path); label != "" {
		return label
	}
	return editTaskFields[path]
}

// editTaskForm shows the Edit task form of ?project= and ?task=: the
// task's current script, timeout and title, to change without writing
// YAML.
func (c *Console) editTaskForm(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil || c.cfg.Export == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	q := r.URL.Query()
	want := apply.EditTask{Project: strings.TrimSpace(q.Get("project")), Task: strings.TrimSpace(q.Get("task"))}
	if want.Project == "" || want.Task == "" {
		c.failWith(w, r, s, http.StatusBadRequest, tr(lang(r), "edit.unnamed"))
		return
	}
	e, err := apply.TaskToEdit(r.Context(), c.cfg.Export, want.Project, want.Task)
	if err != nil {
		if !c.editTaskRefused(w, r, s, want, err) {
			c.fail(w, r, s, err)
		}
		return
	}
	c.renderEditTask(w, r, s, http.StatusOK, editTaskData{EditTask: e})
}

// renderEditTask shows the Edit task form as d holds it, its env editor
// with d's rows.
func (c *Console) renderEditTask(w http.ResponseWriter, r *http.Request, s *session, status int, d editTaskData) {
	d.EnvEditor = c.newEnvEditor(lang(r), d.Env, d.EnvErrors)
	c.render(w, r, status, "edittask", s, d)
}

// editTaskPreview writes the form's script and timeout into the task's
// file (apply.EditTaskFile) and previews it as the definitions page
// previews a file; a mistake is said on the form, which keeps what was
// typed, and a task changed since the form was shown is not overwritten.
func (c *Console) editTaskPreview(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil || c.cfg.Export == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	rev, _ := strconv.ParseInt(field("revision"), 10, 64)
	script := textArea(r, "script")
	d := editTaskData{EditTask: apply.EditTask{Project: field("project"), Task: field("task"), Revision: rev, Script: script,
		Timeout: field("timeout"), Shell: field("shell"), Title: field("title"), WorkingDir: field("workdir")}}
	d.Env, d.EnvSent = envRowsOf(r)
	if r.PostFormValue(envAddField) != "" {
		// Another env row, asked for without a script to add it in the
		// page: the form as filled, with an empty row more.
		c.renderEditTask(w, r, s, http.StatusOK, d)
		return
	}
	if strings.TrimSpace(script) == "" {
		d.Errors = []string{tr(lang(r), "et.required")}
		c.renderEditTask(w, r, s, http.StatusBadRequest, d)
		return
	}
	file := d.EditTask
	var unchosen []string
	file.Env, unchosen = envUnchosen(lang(r), d.Env)
	text, expect, err := apply.EditTaskFile(r.Context(), c.cfg.Export, file)
	if c.editTaskRefused(w, r, s, d.EditTask, err) {
		return
	}
	c.previewTaskForm(w, r, s, text, err, editTaskLabel, nil, unchosen, formOrigin{form: originEditTask, expect: expect}, func(errs, envErrs []string) {
		d.Errors, d.EnvErrors = errs, envErrs
		c.renderEditTask(w, r, s, http.StatusBadRequest, d)
	})
}

// editTaskRefused answers err, a refusal of sent (the form as sent, or
// as asked for) that is not a field's mistake, and says whether it did: a
// task changed since the form showed it is shown as it is now, with the
// script sent beside it; a task the form cannot show, with the way to
// its project's file; a task or project gone, as any page says it.
func (c *Console) editTaskRefused(w http.ResponseWriter, r *http.Request, s *session, sent apply.EditTask, err error) bool {
	switch qlerror.ReasonOf(err) {
	case apply.RefusalChangedSince:
		cur, curErr := apply.TaskToEdit(r.Context(), c.cfg.Export, sent.Project, sent.Task)
		if curErr != nil {
			return c.editTaskRefused(w, r, s, sent, curErr)
		}
		c.renderEditTask(w, r, s, http.StatusConflict, editTaskData{EditTask: cur, Changed: true, Yours: sent, Errors: []string{c.formError(lang(r), err)}})
	case apply.RefusalArgvTask, apply.RefusalScriptNotShown, apply.RefusalEnvNotShown:
		c.renderEditTask(w, r, s, http.StatusConflict, editTaskData{EditTask: apply.EditTask{Project: sent.Project, Task: sent.Task}, Elsewhere: c.errorText(lang(r), err)})
	case apply.RefusalNoSuchEntry, catalog.RefusalProjectMissing:
		c.fail(w, r, s, err)
	default:
		return false
	}
	return true
}
