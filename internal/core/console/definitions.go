package console

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// maxDefinitions caps the definitions page's forms: a definitions file,
// as the API's body cap (a larger project is split over several files).
const maxDefinitions = 1 << 20

// definitionsFile names the edited text in error messages.
const definitionsFile = "definitions.yaml"

// definitionsData is what the definitions page shows: the projects to
// choose from, the YAML being edited, and the errors, preview or result of
// the last step.
type definitionsData struct {
	// Projects are read again on the page's GET, never carried in a
	// flash (shownDefinitions).
	Projects []catalog.ProjectName `json:"-"`
	Project  string
	YAML     string
	// CanPublish is false where the server's database role may not.
	CanPublish bool
	// ShellTasks are the shown project's tasks the Edit task form edits,
	// and TaskTitles their display titles by name (a task without one
	// left out).
	ShellTasks []string
	TaskTitles map[string]string
	// Errors are the file's errors in file order, at most
	// apply.MaxErrors; MoreErrors counts those found past them.
	Errors     []fileError
	MoreErrors int
	// Unavailable: the database could not be used (locked by another
	// writer, read-only, full), so Errors is its one error, not the
	// file's: the page says so over it rather than that the file is
	// invalid, and keeps the text to send again.
	Unavailable bool
	// Step is "preview" (Diff is a dry run's, to confirm) or "applied"
	// (Diff is what the apply did); "" while editing.
	Step    string
	Diff    []apply.Result
	Changes int
	// Unlisted counts by change the rows of an apply's Diff its page does
	// not list, and Short says it leaves out the rest of what the apply
	// reported (notes, the task created, the import's lines): a result
	// too large for the cookie taking it to its page is cut (fitApplied).
	Unlisted []changeCount
	Short    bool
	// Notes say, in the page's language, what the valid file does that
	// its author likely does not expect (as `ql apply` notes it).
	Notes []string
	// SecretsNote: a note is about the secrets file (names it lacks, or
	// that it cannot be used), which the secrets page fixes.
	SecretsNote bool
	// Origin is the form that wrote the file (originNewTask,
	// originEditTask, originEditSchedule), "" for a file a user wrote or
	// uploaded; Expect, an edit form's, the revisions its file was written
	// from (apply.Expected), checked again by the apply.
	Origin string
	Expect []apply.Expected
	// Created is, for the New task form's file, the task and trigger it
	// creates as the file has them: the preview shows what will run and
	// when, since the form's user wrote no file to read it in.
	Created *newTaskShown
	// NewTask is, on the New task form's preview, the form's fields as
	// they were filled in: going back to editing returns to the form with
	// them, not to the file it wrote, which is no project's definitions.
	NewTask *apply.NewTask
	// Crontab is, on the crontab import's preview, the crontab as given
	// and the lines the converter reported: the preview lists them, and
	// its way back returns to the import form with the crontab.
	Crontab *crontabImport
	// Scripts is, on the Scripts page's preview of a folder's tasks, the
	// folder and fields as given and the scripts made no task of: the
	// preview lists them, and its way back returns to that form.
	Scripts *scriptsImport
	// EnvShown is, on a task form's preview, that the page shows the
	// task's env as the file sets it (Env): what the command will be
	// given, a secret by its name.
	EnvShown bool
	Env      []apply.EnvRow
}

// formOrigin is the form that wrote a definitions file and, for an edit
// form, the revisions its file was written from; for the New task form,
// its fields as they were filled in, which its preview's way back
// returns to the form.
type formOrigin struct {
	form    string
	expect  []apply.Expected
	newTask *apply.NewTask
	// crontab is, for the crontab import's file, the crontab it was
	// converted from and the lines reported, which its preview shows.
	crontab *crontabImport
	// entryLines are, for the crontab import's file, the crontab lines
	// its entries came from: entryLines[i] made task i and trigger i.
	entryLines []int
	// scripts is, for the Scripts page's file, the folder it was read
	// from and the scripts made no task of.
	scripts *scriptsImport
}

// changeCount is how many rows of a Diff have one Change.
type changeCount struct {
	Change catalog.Change
	N      int
}

// ErrorCount is how many errors the file has, listed or not.
func (d definitionsData) ErrorCount() int { return len(d.Errors) + d.MoreErrors }

// fileError is one error of the file at its place (Line 0: none known);
// InCrontab: Line is the line of the crontab the crontab import converted
// the file from, which its user saw, not of the file.
type fileError struct {
	Line, Column int
	Message      string
	InCrontab    bool
}

// fileErrors are the errors of a file err holds, each at its place and in
// language l, and the count of those not listed; err itself, at no place,
// when it holds none.
func (c *Console) fileErrors(l string, err error) ([]fileError, int) {
	list, more := apply.Errors(err)
	if len(list) == 0 {
		return []fileError{{Message: c.errorText(l, err)}}, 0
	}
	out := make([]fileError, len(list))
	for i, le := range list {
		// One error is worded by err whole, which may say more of it than
		// its place does (an outcome unknown of a publish at a line).
		var of error = le
		if len(list) == 1 {
			of = err
		}
		msg, worded := locatedSentence(l, of, le)
		if !worded {
			msg = le.Detail
		}
		out[i] = fileError{Line: le.Line, Column: le.Column, Message: c.named(msg)}
	}
	return out, more
}

// locatedSentence is sentence(l, of) for of, the error le of a file or
// the whole error of a file of one error, started with the task or
// trigger le is in when it is in one: a reason's sentence says what is
// wrong with a field, and le's Detail names the entry in English only
// (触发器“t”：trigger.misfire：…).
func locatedSentence(l string, of error, le *apply.LocatedError) (string, bool) {
	msg, ok := sentence(l, of)
	if !ok || !le.Lead {
		return msg, ok
	}
	what := words[l]["kind."+le.About.Kind]
	if le.About.Name == "" {
		return what + "：" + msg, true
	}
	return what + "“" + le.About.Name + "”：" + msg, true
}

// definitions shows a project as YAML (its current revisions exported, as
// `ql export` prints them), ready to edit and preview; where the server
// cannot publish, to read and copy, the page saying where an edited file
// can be applied.
func (c *Console) definitions(w http.ResponseWriter, r *http.Request, s *session) {
	d := definitionsData{CanPublish: c.cfg.Definitions != nil, Project: strings.TrimSpace(r.URL.Query().Get("project"))}
	var err error
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	if d.Project != "" && c.cfg.Export != nil && ids.Validate("project", d.Project) == nil {
		// A project's id, as an older link gives it, unless a project is
		// named so: the address is sent to name it, as a list page's is.
		redirect := ""
		_, err = c.cfg.Export.ProjectDefinitions(r.Context(), d.Project, 0)
		if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
			redirect, err = c.projectAddress(r, d.Project)
		}
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		if redirect != "" {
			http.Redirect(w, r, redirect, http.StatusFound)
			return
		}
	}
	if d.Project != "" && c.cfg.Export != nil {
		// A name no project can have is not one to create either: the
		// store's refusal would suggest writing it in a file (project: NAME).
		if validate.Name("project", d.Project) != nil {
			c.fail(w, r, s, qlerror.New(qlerror.NotFound, "project %q does not exist: it is not a project name (lower-case letters, digits, '-', '_' or '.', "+
				"starting and ending with a letter or digit); choose one of the projects listed", d.Project).Because(refusalNotAProjectName, "name", d.Project))
			return
		}
		ex, err := apply.ExportProject(r.Context(), c.cfg.Export, d.Project, boundOf(r.Context()).in())
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.YAML, d.ShellTasks, d.TaskTitles = string(ex.YAML), ex.ShellTasks, ex.Titles.Tasks
	}
	c.render(w, r, http.StatusOK, "definitions", s, d)
}

// editDefinitions takes a previewed file back to the editor as it was
// sent, unapplied edits and all (a new project's included, which has no
// stored revision to show).
func (c *Console) editDefinitions(w http.ResponseWriter, r *http.Request, s *session) {
	d := definitionsData{CanPublish: c.cfg.Definitions != nil, YAML: r.PostFormValue("yaml"), Project: strings.TrimSpace(r.PostFormValue("project"))}
	var err error
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.redirectOrShow(w, r, s, "/definitions?"+url.Values{"project": {d.Project}}.Encode(), flash{Page: "definitions", Data: d})
}

// submitted is the form's definitions file: an uploaded file when one is
// given, else the text area.
func submitted(r *http.Request) (string, error) {
	text, given, err := uploadedText(r, "file")
	if err != nil || given {
		return text, err
	}
	return r.PostFormValue("yaml"), nil
}

// previewDefinitions validates the file as `ql apply` does and shows what
// applying it would change, with a button to confirm; errors are shown
// at their lines beside the text, which stays as it was for fixing.
func (c *Console) previewDefinitions(w http.ResponseWriter, r *http.Request, s *session) {
	c.definitionsStep(w, r, s, true)
}

// applyDefinitions publishes the confirmed file in one transaction, with
// the audit record of the session's token and address.
func (c *Console) applyDefinitions(w http.ResponseWriter, r *http.Request, s *session) {
	c.definitionsStep(w, r, s, false)
}

func (c *Console) definitionsStep(w http.ResponseWriter, r *http.Request, s *session, dry bool) {
	if c.cfg.Definitions == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	text, err := submitted(r)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	o := formOrigin{form: r.PostFormValue("origin")}
	switch o.form {
	case originNewTask:
	case originCrontab:
		o.crontab, o.entryLines = c.sentCrontab(r)
	case originScripts:
		o.scripts = c.sentScripts(r)
	case originEditTask, originEditSchedule, originProjectEnv:
		for _, v := range r.PostForm["expect"] {
			if e, ok := apply.ParseExpected(v); ok {
				o.expect = append(o.expect, e)
			}
		}
	default:
		o.form = ""
	}
	c.definitionsText(w, r, s, dry, text, o)
}

// failCannotPublish answers a form that publishes definitions on a server
// whose database role may not.
func (c *Console) failCannotPublish(w http.ResponseWriter, r *http.Request, s *session) {
	c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server cannot publish definitions: its database role may not "+
		"(a cluster replica runs as the runtime role); run `ql apply -f FILE` with the admin role's URL, or with --api-url against a server that can").Because(refusalCannotPublish))
}

// definitionsText previews (dry) or applies the definitions file text and
// shows the result on the definitions page; o is the form that wrote the
// file (none for one a user wrote or uploaded), kept through the preview.
func (c *Console) definitionsText(w http.ResponseWriter, r *http.Request, s *session, dry bool, text string, o formOrigin) {
	d := definitionsData{CanPublish: true, YAML: text, Origin: o.form, Expect: o.expect, NewTask: o.newTask, Crontab: o.crontab, Scripts: o.scripts}
	var err error
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	var results []apply.Result
	doc, err := apply.Parse(definitionsFile, []byte(text))
	if err == nil {
		d.Project, doc.Expect = doc.Project, o.expect
		svc := *c.cfg.Definitions
		if dry {
			results, err = apply.Plan(r.Context(), svc, svc.Store, doc, ids.New)
		} else {
			results, err = apply.Audited(r.Context(), svc, doc, ids.New, s.actor(r))
		}
	}
	if c.editRefused(w, r, s, o.form, doc, err) {
		return
	}
	status := http.StatusOK
	switch {
	case qlerror.ReasonOf(err) == hold.RefusalDatabaseLocked:
		status, d.Unavailable = http.StatusGatewayTimeout, true
		d.Errors, d.MoreErrors = c.fileErrors(lang(r), err)
	case err != nil && (qlerror.CodeOf(err) == qlerror.Internal || outOfTime(r, err)):
		c.fail(w, r, s, err)
		return
	case qlerror.Is(err, qlerror.Unavailable):
		status, d.Unavailable = http.StatusServiceUnavailable, true
		d.Errors, d.MoreErrors = c.fileErrors(lang(r), err)
	case err != nil:
		status = http.StatusBadRequest
		d.Errors, d.MoreErrors = c.fileErrors(lang(r), err)
	case dry:
		d.Step, d.Diff = "preview", results
		d.Notes, d.SecretsNote = c.definitionsNotes(r.Context(), lang(r), doc, results, o.form)
	default:
		d.Step, d.Diff = "applied", results
		d.Notes, d.SecretsNote = c.definitionsNotes(r.Context(), lang(r), doc, results, o.form)
		// The choices were read before the apply, which may have created
		// the file's project: it is one now.
		d.Projects = withChosen(d.Projects, catalog.ProjectName{Name: doc.Project, Title: doc.Title})
	}
	if err != nil && o.form == originCrontab {
		c.refusedImport(w, r, s, status, *o.crontab, atCrontabLines(d.Errors, err, o.entryLines), d.MoreErrors)
		return
	}
	if err != nil && o.form == originScripts {
		// Its user never saw the file, whose lines would point nowhere.
		for i := range d.Errors {
			d.Errors[i].Line, d.Errors[i].Column = 0, 0
		}
		c.renderScriptsImport(w, r, s, status, scriptsImportData{scriptsImport: *o.scripts, Refusals: d.Errors, MoreRefusals: d.MoreErrors})
		return
	}
	if err == nil && o.form == originNewTask {
		d.Created = shownNewTask(doc, time.Now().UnixMilli())
	}
	if err == nil && (o.form == originNewTask || o.form == originEditTask) && len(doc.Tasks) == 1 {
		d.EnvShown, d.Env = true, apply.EnvRows(doc.Tasks[0].Spec.Command.Env)
	}
	for _, res := range results {
		if res.Change != "unchanged" {
			d.Changes++
		}
	}
	to := "/definitions?" + url.Values{"project": {d.Project}}.Encode()
	switch d.Step {
	case "preview":
		// The preview too: Back from the applied page leads to it, and a
		// POST's answer there would ask to send the file again. Its
		// confirm sends the whole file back, so a preview too large for a
		// cookie is this answer, never one replica's memory.
		c.redirectOrShow(w, r, s, to, flash{Page: "definitions", Data: d})
	case "applied":
		// The page shows the project as the apply left it (its editor
		// the project's definitions, read again: shownDefinitions), not
		// the file sent, nor what only the preview's form sends back.
		d.YAML, d.Expect, d.NewTask = "", nil, nil
		if d.Crontab != nil {
			shown := *d.Crontab
			shown.Text = ""
			d.Crontab = &shown
		}
		c.redirectWith(w, r, s, to, flash{Page: "definitions", Data: d})
	default:
		c.render(w, r, status, "definitions", s, d)
	}
}

// shownDefinitions is a definitions page's data d from a flash, with what
// it does not carry read again for r: the project choices and, after an
// apply, the project's definitions as the apply left them, in the editor
// with links to edit its tasks, as the page reloaded shows them. What
// cannot be read now is left out: the flash is the one showing of what
// the form did, which the page must not lose to a refusal.
func (c *Console) shownDefinitions(r *http.Request, d definitionsData) definitionsData {
	d.Projects, _ = c.projectChoices(r.Context())
	if d.Step != "applied" || d.Project == "" {
		return d
	}
	d.Projects = withChosen(d.Projects, catalog.ProjectName{Name: d.Project})
	if c.cfg.Export == nil {
		return d
	}
	if ex, err := apply.ExportProject(r.Context(), c.cfg.Export, d.Project, boundOf(r.Context()).in()); err == nil {
		d.YAML, d.ShellTasks, d.TaskTitles = string(ex.YAML), ex.ShellTasks, ex.Titles.Tasks
	}
	return d
}

// fitApplied is an apply's result d cut until fits says it fits: its
// changed rows listed before its unchanged ones, as many as fit, the rest
// counted by change (Unlisted); when no row fits beside its notes and
// details, those are left out (Short) and the rows fitted again. Every
// cut keeps the project, the count of changes and the counts of what is
// not listed, so the page always says what the apply did. A preview or
// the editor is not cut: its file is sent back whole.
func fitApplied(d definitionsData, fits func(definitionsData) bool) definitionsData {
	if d.Step != "applied" {
		return d
	}
	order := make([]int, 0, len(d.Diff))
	for i, res := range d.Diff {
		if res.Change != catalog.Unchanged {
			order = append(order, i)
		}
	}
	for i, res := range d.Diff {
		if res.Change == catalog.Unchanged {
			order = append(order, i)
		}
	}
	// listing is from listing the first k rows of order, in the Diff's
	// order, and counting the others.
	listing := func(from definitionsData, k int) definitionsData {
		out := from
		out.Diff, out.Unlisted = make([]apply.Result, 0, k), nil
		for _, i := range slices.Sorted(slices.Values(order[:k])) {
			out.Diff = append(out.Diff, from.Diff[i])
		}
		for _, i := range order[k:] {
			at := slices.IndexFunc(out.Unlisted, func(u changeCount) bool { return u.Change == from.Diff[i].Change })
			if at < 0 {
				out.Unlisted = append(out.Unlisted, changeCount{Change: from.Diff[i].Change})
				at = len(out.Unlisted) - 1
			}
			out.Unlisted[at].N++
		}
		return out
	}
	// most is from listing as many rows as fit, and whether any number
	// (none included) fits.
	most := func(from definitionsData) (definitionsData, bool) {
		k := sort.Search(len(order)+1, func(k int) bool { return !fits(listing(from, k)) }) - 1
		for ; k >= 0; k-- {
			if out := listing(from, k); fits(out) {
				return out, true
			}
		}
		return listing(from, 0), false
	}
	if out, ok := most(d); ok {
		return out
	}
	short := d
	short.Notes, short.SecretsNote, short.Created, short.EnvShown, short.Env, short.Crontab, short.Scripts = nil, false, nil, false, nil, nil, nil
	short.Short = true
	out, _ := most(short)
	return out
}
