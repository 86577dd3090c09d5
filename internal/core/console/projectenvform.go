package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// originProjectEnv marks a definitions file the Edit environment form
// wrote: the project alone, its env changed.
const originProjectEnv = "projectenv"

// projectEnvData is what the Edit environment form shows: the project's
// env (as sent, or as stored) in the task forms' env editor, the
// mistakes of the last try beside it, and, for a project changed since
// the form was shown, the current env with the rows sent (Yours) beside
// it to make the change again.
type projectEnvData struct {
	apply.EditProjectEnv
	EnvEditor envEditor
	Changed   bool
	Yours     []apply.EnvRow
	// Elsewhere says why this form cannot show the env: the page links
	// to the project's definitions file instead.
	Elsewhere string
}

// projectEnvForm shows the Edit environment form of ?project=.
func (c *Console) projectEnvForm(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil || c.cfg.Export == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	name := strings.TrimSpace(r.URL.Query().Get("project"))
	if name == "" {
		c.failWith(w, r, s, http.StatusBadRequest, tr(lang(r), "edit.unnamed"))
		return
	}
	e, err := apply.ProjectEnvToEdit(r.Context(), c.cfg.Export, name)
	if err != nil {
		if !c.projectEnvRefused(w, r, s, name, nil, err) {
			c.fail(w, r, s, err)
		}
		return
	}
	c.renderProjectEnv(w, r, s, http.StatusOK, projectEnvData{EditProjectEnv: e}, nil)
}

// renderProjectEnv shows the Edit environment form as d holds it, errs
// beside its rows: the rows are all the form has.
func (c *Console) renderProjectEnv(w http.ResponseWriter, r *http.Request, s *session, status int, d projectEnvData, errs []string) {
	d.EnvEditor = c.newEnvEditor(lang(r), d.Env, errs)
	c.render(w, r, status, "projectenv", s, d)
}

// projectEnvPreview writes the form's rows into the project's file
// (apply.ProjectEnvFile) and previews it as the task forms do; a mistake,
// or a refusal of the file (a task that could not start with the env),
// is said beside the rows, which keep what was typed, and a project
// changed since the form was shown is not overwritten.
func (c *Console) projectEnvPreview(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil || c.cfg.Export == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	shown, _ := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("shown")), 10, 64)
	d := projectEnvData{EditProjectEnv: apply.EditProjectEnv{Project: strings.TrimSpace(r.PostFormValue("project")), Shown: shown}}
	d.Env, _ = envRowsOf(r)
	if r.PostFormValue(envAddField) != "" {
		c.renderProjectEnv(w, r, s, http.StatusOK, d, nil)
		return
	}
	file := d.EditProjectEnv
	var unchosen []string
	file.Env, unchosen = envUnchosen(lang(r), d.Env)
	text, expect, err := apply.ProjectEnvFile(r.Context(), c.cfg.Export, file)
	if c.projectEnvRefused(w, r, s, d.Project, d.Env, err) {
		return
	}
	c.previewTaskForm(w, r, s, text, err, envLabel, nil, unchosen, formOrigin{form: originProjectEnv, expect: expect}, func(errs, envErrs []string) {
		c.renderProjectEnv(w, r, s, http.StatusBadRequest, d, append(errs, envErrs...))
	})
}

// projectEnvRefused answers err, a refusal of the rows sent for
// projectName that is not a row's mistake, and says whether it did: a
// project changed since the form showed it is shown as it is now, the
// rows sent beside it; an env the form cannot show, with the way to the
// project's file; a project gone, as any page says it.
func (c *Console) projectEnvRefused(w http.ResponseWriter, r *http.Request, s *session, projectName string, sent []apply.EnvRow, err error) bool {
	switch qlerror.ReasonOf(err) {
	case apply.RefusalProjectChangedSince:
		cur, curErr := apply.ProjectEnvToEdit(r.Context(), c.cfg.Export, projectName)
		if curErr != nil {
			return c.projectEnvRefused(w, r, s, projectName, sent, curErr)
		}
		c.renderProjectEnv(w, r, s, http.StatusConflict, projectEnvData{EditProjectEnv: cur, Changed: true, Yours: sent}, []string{c.formError(lang(r), err)})
	case apply.RefusalProjectEnvNotShown:
		c.renderProjectEnv(w, r, s, http.StatusConflict, projectEnvData{EditProjectEnv: apply.EditProjectEnv{Project: projectName}, Elsewhere: c.errorText(lang(r), err)}, nil)
	case catalog.RefusalProjectMissing:
		c.fail(w, r, s, err)
	default:
		return false
	}
	return true
}
