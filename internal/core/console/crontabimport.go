package console

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// originCrontab marks a definitions file the crontab import wrote from a
// crontab, through its preview and apply: what it publishes is that
// crontab's entries, the project's other tasks and triggers left as they
// are.
const originCrontab = "crontab"

// crontabImport is a crontab as the import form took it and what the
// converter made of it: the lines it reports, worded in the page's
// language, and how many entries it converted.
type crontabImport struct {
	Text, Project, Zone, Account, ScriptsDir string
	System                                   bool
	Lines                                    []importLine
	Converted                                int
	// PanelEnv: the crontab's tasks are the qinglong panel's (a task
	// line) and the project has no env, which the panel gave every task
	// (JD_COOKIE and the like): the preview notes it, linking the
	// project's Edit environment page. A note, no refusal.
	PanelEnv bool
}

// importLine is a line the converter reported: Kind is its
// crontab.Kind's class (not-converted, converted-but, note).
type importLine struct {
	Line       int
	Text, Kind string
	Why        string
}

// Refused counts the lines that were not converted.
func (ci crontabImport) Refused() int {
	n := 0
	for _, l := range ci.Lines {
		if l.Kind == kindClass[crontab.NotConverted] {
			n++
		}
	}
	return n
}

// importView is a crontab import's lines as the page of language Lang
// shows them.
type importView struct {
	Lang   string
	Import crontabImport
}

// View is ci shown in language l.
func (ci crontabImport) View(l string) importView { return importView{Lang: l, Import: ci} }

// kindClass is a crontab.Kind as a class and a key of its words.
var kindClass = map[crontab.Kind]string{crontab.NotConverted: "not-converted", crontab.ConvertedBut: "converted-but", crontab.Noted: "note"}

// importData is what the import form shows: the crontab as given, the
// projects to choose from, the form's mistakes or the store's refusal of
// the converted file, and, on a server that cannot publish, the file
// converted to copy.
type importData struct {
	crontabImport
	Projects []catalog.ProjectName
	Errors   []string
	// Refusals are the store's errors of the converted file, at the
	// crontab lines of their entries where known (InCrontab), and
	// MoreRefusals those found past them.
	Refusals     []fileError
	MoreRefusals int
	CanPublish   bool
	YAML         string
}

// importForm shows the crontab import form (?project= chooses the
// project).
func (c *Console) importForm(w http.ResponseWriter, r *http.Request, s *session) {
	d := importData{crontabImport: crontabImport{Project: strings.TrimSpace(r.URL.Query().Get("project"))}}
	if c.cfg.Scripts != nil {
		// The panel's task lines ran scripts from its scripts folder; this
		// server's own is where its Scripts page keeps them.
		d.ScriptsDir = c.cfg.Scripts.Dir
	}
	c.renderImport(w, r, s, http.StatusOK, d)
}

// importPreview converts the crontab given (pasted or uploaded) with the
// converter `ql crontab convert` uses and previews its file as the
// definitions page previews one, with the lines not converted and why;
// nothing is published before the preview's confirm. A crontab of no
// entry converted stays on the form, which says why of each line: its
// file would publish nothing but, for a new project, the project.
func (c *Console) importPreview(w http.ResponseWriter, r *http.Request, s *session) {
	l := lang(r)
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	d := importData{crontabImport: crontabImport{Project: field("project"), Zone: field("timezone"), Account: field("account"),
		ScriptsDir: field("scriptsdir"), System: r.PostFormValue("system") != "", Text: textArea(r, "crontab")}}
	if r.PostFormValue("back") != "" {
		c.renderImport(w, r, s, http.StatusOK, d)
		return
	}
	uploaded, given, err := uploadedText(r, "file")
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if given {
		d.Text = strings.ReplaceAll(uploaded, "\r\n", "\n")
	}
	d.Errors = c.importMistakes(l, d.crontabImport)
	// The route is an owner's, and no owner is bound; the project is
	// checked all the same, as every page that names one checks it.
	if err := boundOf(r.Context()).covers(d.Project, "project "+d.Project); d.Project != "" && err != nil {
		c.fail(w, r, s, err)
		return
	}
	if len(d.Errors) > 0 {
		c.renderImport(w, r, s, http.StatusBadRequest, d)
		return
	}
	res, err := crontab.Convert(strings.NewReader(d.Text), crontab.Options{Zone: d.Zone, System: d.System, Account: d.Account, ScriptsDir: d.ScriptsDir, Edge: c.edge()})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Lines, d.Converted = c.importLines(l, res.Problems), len(res.Entries)
	d.PanelEnv = panelTasks(res) && c.projectWithoutEnv(r.Context(), d.Project)
	if d.Converted == 0 {
		d.Errors = []string{tr(l, "imp.none")}
		c.renderImport(w, r, s, http.StatusBadRequest, d)
		return
	}
	file, err := res.Definitions(d.Project, c.crontabServer())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if c.cfg.Definitions == nil {
		d.YAML = string(file)
		c.renderImport(w, r, s, http.StatusOK, d)
		return
	}
	ci := d.crontabImport
	c.definitionsText(w, r, s, true, string(file), formOrigin{form: originCrontab, crontab: &ci, entryLines: entryLines(res)})
}

// entryLines are the crontab lines res's entries came from, in the order
// its file lists their tasks and triggers.
func entryLines(res crontab.Result) []int {
	out := make([]int, len(res.Entries))
	for i, e := range res.Entries {
		out[i] = e.Line
	}
	return out
}

// sentCrontab is the crontab a confirmed import's form carries along
// (its crontab, project, timezone, account, scripts folder and system
// fields), with the lines the converter reports in the page's language,
// and the entryLines of its entries: nil when the converter refuses what
// it carries.
func (c *Console) sentCrontab(r *http.Request) (*crontabImport, []int) {
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	ci := crontabImport{Project: field("project"), Zone: field("timezone"), Account: field("account"),
		ScriptsDir: field("scriptsdir"), System: r.PostFormValue("system") != "", Text: textArea(r, "crontab")}
	res, err := crontab.Convert(strings.NewReader(ci.Text), crontab.Options{Zone: ci.Zone, System: ci.System, Account: ci.Account, ScriptsDir: ci.ScriptsDir, Edge: c.edge()})
	if err != nil {
		return &ci, nil
	}
	ci.Lines, ci.Converted = c.importLines(lang(r), res.Problems), len(res.Entries)
	return &ci, entryLines(res)
}

// refusedImport shows the store's refusal of the file a crontab import
// converted (errs, more past them) on the import form, above the crontab
// the user sent (ci) for fixing there: they never saw the converted
// file, so the definitions page's editable copy of it would be a text
// they did not write, and a fix made to it would leave their crontab as
// it was.
func (c *Console) refusedImport(w http.ResponseWriter, r *http.Request, s *session, status int, ci crontabImport, errs []fileError, more int) {
	c.renderImport(w, r, s, status, importData{crontabImport: ci, Refusals: errs, MoreRefusals: more})
}

// atCrontabLines places errs, the errors of err, a file the crontab
// import converted, at the crontab lines their tasks and triggers came
// from (lines, entryLines): its user saw the crontab, not the file, whose
// line numbers would point nowhere they can look. An error of no entry
// (the project's) is at no line; errs of err said whole stay as they are.
func atCrontabLines(errs []fileError, err error, lines []int) []fileError {
	list, _ := apply.Errors(err)
	if len(list) != len(errs) {
		return errs
	}
	for i, le := range list {
		errs[i].Line, errs[i].Column, errs[i].InCrontab = 0, 0, true
		if le.About.Kind != "" && le.About.Index >= 0 && le.About.Index < len(lines) {
			errs[i].Line = lines[le.About.Index]
		}
	}
	return errs
}

// importMistakes are the form's mistakes in language l: a crontab, a
// project and a zone are required, the project a name one may have, the
// zone one cron knows, the account a user name or uid.
func (c *Console) importMistakes(l string, ci crontabImport) []string {
	var out []string
	if strings.TrimSpace(ci.Text) == "" {
		out = append(out, tr(l, "imp.text")+tr(l, "def.sep")+tr(l, "imp.blanktext"))
	}
	out = append(out, c.projectZoneMistakes(l, ci.Project, ci.Zone)...)
	if ci.Account != "" {
		out = append(out, c.fieldMistake(l, "imp.account", ci.Account, (task.RunAs{User: ci.Account}).Validate("account"))...)
	}
	if ci.ScriptsDir != "" {
		out = append(out, c.fieldMistake(l, "imp.scriptsdir", ci.ScriptsDir, task.CheckWorkingDir(ci.ScriptsDir))...)
	}
	return out
}

// projectZoneMistakes are the mistakes in language l of a form that
// writes tasks into project at zone: both are required, the project a
// name one may have, the zone one cron knows.
func (c *Console) projectZoneMistakes(l, project, zone string) []string {
	return append(c.fieldMistake(l, "nt.project", project, validate.Name("project", project)),
		c.fieldMistake(l, "nt.timezone", zone, cron.CheckTimezone(zone))...)
}

// fieldMistake is the mistake in language l of the field labelled label
// holding value, err its refusal: blank, refused, or none.
func (c *Console) fieldMistake(l, label, value string, err error) []string {
	switch {
	case value == "":
		return []string{tr(l, label) + tr(l, "def.sep") + tr(l, "nt.blank")}
	case err != nil:
		return []string{tr(l, label) + tr(l, "def.sep") + c.formError(l, err)}
	}
	return nil
}

// importLines are the converter's reports in language l.
func (c *Console) importLines(l string, problems []crontab.Problem) []importLine {
	out := make([]importLine, len(problems))
	for i, p := range problems {
		out[i] = importLine{Line: p.Line, Text: strings.TrimSpace(p.Text), Kind: kindClass[p.Kind], Why: c.named(problemWhyIn(l, p, false, c.edge()))}
	}
	return out
}

// uploadedText is the text of the form's uploaded file of field; given
// is false when none was chosen.
func uploadedText(r *http.Request, field string) (text string, given bool, err error) {
	f, _, err := r.FormFile(field)
	switch {
	case errors.Is(err, http.ErrMissingFile), errors.Is(err, http.ErrNotMultipart):
		return "", false, nil
	case err != nil:
		return "", false, qlerror.Wrap(qlerror.Invalid, err, "the uploaded file cannot be read").Because(refusalUnreadableFile)
	}
	defer f.Close() //nolint:errcheck // read only
	var b bytes.Buffer
	if _, err := io.Copy(&b, f); err != nil {
		return "", false, qlerror.Wrap(qlerror.Invalid, err, "the uploaded file cannot be read").Because(refusalUnreadableFile)
	}
	return b.String(), true, nil
}

func (c *Console) renderImport(w http.ResponseWriter, r *http.Request, s *session, status int, d importData) {
	var err error
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Projects, d.CanPublish = unarchived(d.Projects), c.cfg.Definitions != nil
	c.render(w, r, status, "crontabimport", s, d)
}

// panelTasks reports whether res converted the qinglong panel's task
// lines, whose scripts read the env the panel gave every task.
func panelTasks(res crontab.Result) bool {
	for _, p := range res.Problems {
		if p.Code == crontab.CodeTaskCommand || p.Code == crontab.CodeTaskInterpreter {
			return true
		}
	}
	return false
}

// projectWithoutEnv reports whether project has no env: none yet, or
// none at all. An env the form cannot show, or a read that failed, is
// not known to be none, and is not noted.
func (c *Console) projectWithoutEnv(ctx context.Context, project string) bool {
	if c.cfg.Export == nil {
		return false
	}
	e, err := apply.ProjectEnvToEdit(ctx, c.cfg.Export, project)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return true
	}
	return err == nil && len(e.Env) == 0
}

// crontabServer is what a file converted here says of this server in its
// header: the binary's name and the concurrency it runs with.
func (c *Console) crontabServer() crontab.Server {
	return crontab.Server{Binary: c.cfg.Binary, Concurrency: crontab.RunningConcurrency(c.cfg.LocalConcurrency)}
}
