package console

import (
	"io/fs"
	"net/http"
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/scripts"
)

// originScripts marks a definitions file the Scripts page wrote from a
// folder's script headers, through its preview and apply: what it
// publishes is a task and a trigger per script, the project's other
// tasks and triggers left as they are.
const originScripts = "scripts"

// scriptsImport is a folder of the scripts folder as the Tasks from
// these scripts form took it, and what `ql crontab scripts`'s reader made
// of it: the scripts it made no task of (Skipped, Text their paths) and
// what it noted of those it did (Notes), why worded in the page's
// language, and how many tasks it made.
type scriptsImport struct {
	Path, Project, Zone, Match, Exclude string
	Skipped, Notes                      []importLine
	Converted                           int
}

// scriptsImportView is a scripts import as the page of language Lang
// shows it.
type scriptsImportView struct {
	Lang   string
	Import scriptsImport
}

// View is si shown in language l.
func (si scriptsImport) View(l string) scriptsImportView {
	return scriptsImportView{Lang: l, Import: si}
}

// scriptsImportData is what the form shows: the folder and fields as
// given, the projects to choose from, the form's mistakes (a regular
// expression's beside its field) or the store's refusal of the file.
type scriptsImportData struct {
	scriptsImport
	Projects                 []catalog.ProjectName
	Crumbs                   []crumb
	Errors                   []string
	MatchError, ExcludeError string
	Refusals                 []fileError
	MoreRefusals             int
}

// scriptsImportForm shows the Tasks from these scripts form of the
// folder ?path=, its regular expressions and project filled in from
// ?match=, ?exclude= and ?project= (a subscription's link).
func (c *Console) scriptsImportForm(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	c.renderScriptsImport(w, r, s, http.StatusOK, scriptsImportData{scriptsImport: scriptsImport{Path: q.Get("path"), Match: q.Get("match"), Exclude: q.Get("exclude"), Project: q.Get("project")}})
}

// scriptsImportPreview reads the folder's scripts as `ql crontab
// scripts` does and previews the file it makes as the definitions page
// previews one, with the scripts it made no task of and why; nothing is
// published before the preview's confirm.
func (c *Console) scriptsImportPreview(w http.ResponseWriter, r *http.Request, s *session) {
	si := sentScriptsImport(r)
	d := scriptsImportData{scriptsImport: si}
	if r.PostFormValue("back") != "" || c.cfg.Scripts == nil || c.cfg.Definitions == nil {
		c.renderScriptsImport(w, r, s, http.StatusOK, d)
		return
	}
	l := lang(r)
	d.Errors = c.projectZoneMistakes(l, si.Project, si.Zone)
	o, matchErr, excludeErr := scriptOptions(si)
	if matchErr != nil {
		d.MatchError = tr(l, "sti.badregex") + matchErr.Error()
	}
	if excludeErr != nil {
		d.ExcludeError = tr(l, "sti.badregex") + excludeErr.Error()
	}
	if err := boundOf(r.Context()).covers(si.Project, "project "+si.Project); si.Project != "" && err != nil {
		c.fail(w, r, s, err)
		return
	}
	if len(d.Errors) > 0 || d.MatchError != "" || d.ExcludeError != "" {
		c.renderScriptsImport(w, r, s, http.StatusBadRequest, d)
		return
	}
	res, err := c.readScripts(l, &d.scriptsImport, o)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if d.Converted == 0 {
		d.Errors = []string{tr(l, "sti.none")}
		c.renderScriptsImport(w, r, s, http.StatusBadRequest, d)
		return
	}
	file, err := res.Definitions(si.Project, c.crontabServer())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.definitionsText(w, r, s, true, string(file), formOrigin{form: originScripts, scripts: &d.scriptsImport})
}

// sentScriptsImport is the form's fields, which a preview's confirm
// carries along.
func sentScriptsImport(r *http.Request) scriptsImport {
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	return scriptsImport{Path: r.PostFormValue("path"), Project: field("project"), Zone: field("timezone"), Match: field("match"), Exclude: field("exclude")}
}

// scriptOptions are si's zone and expressions as the reader takes them,
// and each expression's refusal.
func scriptOptions(si scriptsImport) (o crontab.ScriptOptions, matchErr, excludeErr error) {
	o.Zone = si.Zone
	if si.Match != "" {
		o.Match, matchErr = regexp.Compile(si.Match)
	}
	if si.Exclude != "" {
		o.Exclude, excludeErr = regexp.Compile(si.Exclude)
	}
	return o, matchErr, excludeErr
}

// readScripts reads the scripts of si's folder, confined to the scripts
// folder, into the entries of a file, and fills in si's count of them and
// the scripts made no task of, in language l.
func (c *Console) readScripts(l string, si *scriptsImport, o crontab.ScriptOptions) (crontab.Result, error) {
	var res crontab.Result
	var skipped []crontab.Skipped
	err := c.cfg.Scripts.Within(si.Path, func(fsys fs.FS, dir string) error {
		var err error
		res, skipped, err = crontab.Scripts(fsys, dir, o)
		return err
	})
	if err != nil {
		return res, err
	}
	si.Path, _ = scripts.Clean(si.Path)
	si.Converted, si.Skipped, si.Notes = len(res.Entries), nil, nil
	for _, sk := range skipped {
		si.Skipped = append(si.Skipped, importLine{Text: sk.Path, Kind: kindClass[crontab.NotConverted],
			Why: c.named(problemWhyIn(l, crontab.Problem{Text: sk.Path, Why: sk.Why, Code: sk.Code, Params: sk.Params, Err: sk.Err}, false, c.edge()))})
	}
	for _, p := range res.Problems {
		si.Notes = append(si.Notes, importLine{Text: p.Text, Kind: kindClass[p.Kind], Why: c.named(problemWhyIn(l, p, false, c.edge()))})
	}
	return res, nil
}

// sentScripts is the scripts import a confirmed preview's form carries
// along, read again for the scripts it makes no task of.
func (c *Console) sentScripts(r *http.Request) *scriptsImport {
	si := sentScriptsImport(r)
	if o, matchErr, excludeErr := scriptOptions(si); c.cfg.Scripts != nil && matchErr == nil && excludeErr == nil {
		_, _ = c.readScripts(lang(r), &si, o) // what it lists is only shown; the file confirmed is what is applied
	}
	return &si
}

func (c *Console) renderScriptsImport(w http.ResponseWriter, r *http.Request, s *session, status int, d scriptsImportData) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	if c.cfg.Definitions == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	p, err := scripts.Clean(d.Path)
	if err == nil {
		err = c.cfg.Scripts.Within(p, func(fs.FS, string) error { return nil })
	}
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Path, d.Crumbs = p, crumbsOf(p)
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Projects = unarchived(d.Projects)
	c.render(w, r, status, "scriptsimport", s, d)
}
