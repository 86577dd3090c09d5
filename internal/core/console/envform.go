package console

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// The env editor's form fields: one of each per row, in the rows' order
// (a row's remove box sends its row's index), the marker that the form
// showed the editor, and the button asking for another row.
const (
	envSentField   = "env_sent"
	envAddField    = "env_add"
	envRemoveField = "env_remove"
)

// envPath is the file's field an env mistake is at, whichever part of the
// task's env it names: the env editor's rows.
const envPath = "tasks[0].env"

// envRowsOf reads the env editor's rows a task form sent, in their order:
// a row left empty (no name, no value, no secret) and a row whose remove
// box is ticked are dropped; sent says the form showed the editor at all.
func envRowsOf(r *http.Request) (rows []apply.EnvRow, sent bool) {
	f := r.PostForm
	at := func(field string, i int) string {
		if i < len(f[field]) {
			return f[field][i]
		}
		return ""
	}
	for i, name := range f["env_name"] {
		if slices.Contains(f[envRemoveField], strconv.Itoa(i)) {
			continue
		}
		row := apply.EnvRow{Name: strings.TrimSpace(name), UsesSecret: at("env_kind", i) == "secret"}
		if row.UsesSecret {
			row.Secret = strings.TrimSpace(at("env_secret", i))
		} else {
			row.Value = strings.ReplaceAll(at("env_value", i), "\r\n", "\n")
		}
		if row.Name == "" && row.Value == "" && row.Secret == "" {
			continue
		}
		rows = append(rows, row)
	}
	return rows, f.Get(envSentField) != ""
}

// envUnchosen are the mistakes of rows the file cannot say: a row set
// from a secret with none chosen, which a file would read as an empty
// value. Each starts with the editor's label, as the file's env mistakes
// do; the rows returned are those the file is written from.
func envUnchosen(l string, rows []apply.EnvRow) (written []apply.EnvRow, errs []string) {
	for _, row := range rows {
		if row.UsesSecret && row.Secret == "" {
			name := row.Name
			if name == "" {
				name = tr(l, "env.noname")
			}
			errs = append(errs, tr(l, "nt.env")+tr(l, "def.sep")+fmt.Sprintf(tr(l, "env.unchosen"), name))
			continue
		}
		written = append(written, row)
	}
	return written, errs
}

// envEditor is what the env editor shows: the rows (and one empty row to
// fill in), the secret names to choose from, and the mistakes of its rows.
type envEditor struct {
	L    string
	Rows []apply.EnvRow
	// Known: the secrets file's names are known here, offered as a
	// choice; elsewhere (a cluster's workers hold the secrets) a secret is
	// named by typing it.
	Known   bool
	Secrets []string
	Errors  []string
}

// Choices are the secret names a row's choice offers: the names known,
// and the row's own secret when they lack it, so that a row shown comes
// back as it was.
func (e envEditor) Choices(row apply.EnvRow) []string {
	if row.Secret == "" || slices.Contains(e.Secrets, row.Secret) {
		return e.Secrets
	}
	return append([]string{row.Secret}, e.Secrets...)
}

// newEnvEditor is the editor of rows in language l, an empty row after
// them, with the secret names to choose from.
func (c *Console) newEnvEditor(l string, rows []apply.EnvRow, errs []string) envEditor {
	e := envEditor{L: l, Rows: append(slices.Clip(rows), apply.EnvRow{}), Errors: errs}
	e.Secrets, e.Known = c.secretChoices()
	return e
}

// secretChoices are the names of the secrets file's secrets, names only,
// never a value: the task forms are an owner's, whom no project binds
// (a file's check refuses another project's secret by name at the
// preview). known is false where the file is on other machines or cannot
// be read: the form then takes a typed name, which the preview checks.
func (c *Console) secretChoices() (names []string, known bool) {
	if c.cfg.Secrets == nil {
		return nil, false
	}
	names, err := c.cfg.Secrets.Names()
	return names, err == nil
}

// splitEnvErrors parts a form's mistakes into the env editor's, said
// beside it, and the others, said at the top of the form.
func splitEnvErrors(l string, errs []string) (others, env []string) {
	prefix := tr(l, "nt.env") + tr(l, "def.sep")
	for _, e := range errs {
		if strings.HasPrefix(e, prefix) {
			env = append(env, e)
		} else {
			others = append(others, e)
		}
	}
	return others, env
}

// envReasons are the refusals of an env variable's name or secret that
// the file's reader places at the task, not at its env: the form says
// them beside the env editor too.
var envReasons = []qlerror.Reason{task.RefusalEnvName, task.RefusalEnvReserved, task.RefusalSecretOfAnotherProject}

// fieldPath is the file's field le is at, as a form places it: a refusal
// of an env variable's name or secret at the task's env.
func fieldPath(le *apply.LocatedError) string {
	if slices.Contains(envReasons, qlerror.ReasonOf(le)) {
		return envPath
	}
	return le.Path()
}

// previewTaskForm is previewFormFile for the task forms, whose env rows
// have a mistake of their own (unchosen: envUnchosen) beside the file's:
// every mistake goes back to the form through again, the env editor's
// apart, to be said beside it.
func (c *Console) previewTaskForm(w http.ResponseWriter, r *http.Request, s *session, text []byte, err error,
	labelOf func(path string) string, blank, unchosen []string, origin formOrigin, again func(errs, envErrs []string)) {
	errs, failed := c.formFile(w, r, s, text, err, labelOf, blank)
	if failed {
		return
	}
	if errs = append(errs, unchosen...); len(errs) > 0 {
		again(splitEnvErrors(lang(r), errs))
		return
	}
	c.definitionsText(w, r, s, true, string(text), origin)
}

// envLabel is the label of the env editor for a file's field at path
// within the task's env, "" elsewhere.
func envLabel(path string) string {
	if path == envPath || strings.HasPrefix(path, envPath+".") {
		return "nt.env"
	}
	return ""
}
