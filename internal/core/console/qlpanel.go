package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/qlimport"
	"github.com/qinglong/qinglong/internal/core/task"
)

// maxPanelUpload bounds a qinglong panel's uploaded database: its tasks,
// variables and subscriptions are a few megabytes at most (the panel
// keeps its logs in files, not in it).
const maxPanelUpload = 64 << 20

// maxPanelForm caps the panel import's forms: the database and a few
// short fields.
const maxPanelForm = maxPanelUpload + maxForm

// panelImport is the qinglong panel import page: the form as given, and
// what the panel read becomes (Preview) or what applying it changed
// (Applied).
type panelImport struct {
	Project, Zone, ScriptsDir, Dir string
	// Upload is the uploaded database's name, "" when the form named a
	// folder instead.
	Upload string
	Errors []string
	// CommandLine: this server cannot store what the import makes (a
	// cluster replica, whose workers keep the secrets and packages), so
	// the page gives the command instead.
	CommandLine bool
	// Stale: the panel read at the Import differs from the one previewed,
	// so nothing was stored and the page shows it again.
	Stale    bool
	Preview  *panelPreview
	Applied  *panelApplied
	Projects []catalog.ProjectName
}

// panelPreview is what the panel becomes, as `ql import qinglong`
// prints it: never a secret's value.
type panelPreview struct {
	Tasks        []panelTask
	Disabled     int
	Secrets      []panelSecret
	Dependencies []panelKind
	Skipped      []panelItem
	Notes        []panelItem
	YAML         string
	// Sum stands for the whole plan, values too, under the session's
	// preview key (previewKey): the Import compares it with the plan it
	// reads again.
	Sum string
}

// panelTask is a panel's task or subscription as its task and trigger:
// Command is what the Command column shows of its script, Script the
// whole script when that is not it ("" when it is).
type panelTask struct {
	Ref, Name, Title, Cron, Zone, Command, Script string
	Enabled                                       bool
}

// panelItem is a thing of the panel's, and what became of it, in the
// page's language.
type panelItem struct {
	Ref, Why string
}

// panelSecret is a secret the import sets, by name only.
type panelSecret struct {
	Name, Variable string
	Values         int
	Given          bool
	Remarks        []string
}

// panelKind is the packages of one kind the import declares.
type panelKind struct {
	Kind  deps.Kind
	Specs []string
}

// panelApplied is what an Import changed.
type panelApplied struct {
	Secrets          []qlimport.SecretSet
	SecretsUnchanged int
	Changes          []string
	Unchanged        int
	Declared         []string
	DeclaredAlready  int
	Changed          bool
	ProjectName      string
}

// canImportPanel reports whether this server stores what a panel's
// import makes: definitions, secrets and packages of its own.
func (c *Console) canImportPanel() bool {
	return c.cfg.Definitions != nil && c.cfg.Secrets != nil && c.cfg.Dependencies != nil
}

// panelForm shows the qinglong panel import's form.
func (c *Console) panelForm(w http.ResponseWriter, r *http.Request, s *session) {
	d := panelImport{Project: strings.TrimSpace(r.URL.Query().Get("project"))}
	if c.cfg.Scripts != nil {
		d.ScriptsDir = c.cfg.Scripts.Dir
	}
	c.renderPanel(w, r, s, http.StatusOK, d)
}

// panelPreviewPage reads the panel the form names and shows what it
// becomes; nothing is stored.
func (c *Console) panelPreviewPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.panelStep(w, r, s, false)
}

// panelApply reads the panel again and, when it is still the one
// previewed, stores it as `ql import qinglong --apply` does.
func (c *Console) panelApply(w http.ResponseWriter, r *http.Request, s *session) {
	c.panelStep(w, r, s, true)
}

func (c *Console) panelStep(w http.ResponseWriter, r *http.Request, s *session, store bool) {
	l := lang(r)
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	d := panelImport{Project: field("project"), Zone: field("timezone"), ScriptsDir: field("scriptsdir"), Dir: field("dir")}
	if !c.canImportPanel() {
		c.renderPanel(w, r, s, http.StatusOK, d)
		return
	}
	if err := boundOf(r.Context()).covers(d.Project, "project "+d.Project); d.Project != "" && err != nil {
		c.fail(w, r, s, err)
		return
	}
	f, header, err := r.FormFile("database")
	switch {
	case errors.Is(err, http.ErrMissingFile), errors.Is(err, http.ErrNotMultipart):
	case err != nil:
		c.fail(w, r, s, qlerror.Wrap(qlerror.Invalid, err, "the uploaded file cannot be read").Because(refusalUnreadableFile))
		return
	default:
		defer f.Close() //nolint:errcheck // read only
		d.Upload = filepath.Base(header.Filename)
	}
	d.Errors = c.panelMistakes(l, d)
	if len(d.Errors) > 0 {
		c.renderPanel(w, r, s, http.StatusBadRequest, d)
		return
	}
	panel, err := c.readPanel(r, d, f)
	if err != nil {
		status, msg := c.failure(r, err)
		if status == http.StatusInternalServerError {
			c.fail(w, r, s, err)
			return
		}
		d.Errors = []string{msg}
		c.renderPanel(w, r, s, status, d)
		return
	}
	plan := qlimport.Make(panel, qlimport.Options{Project: d.Project, Convert: crontab.Options{Zone: d.Zone, ScriptsDir: d.ScriptsDir, Binary: c.cfg.Binary, Edge: c.edge()}})
	from := "# Imported from the qinglong panel's folder " + panel.Dir + ".\n"
	if d.Upload != "" {
		from = "# Imported from a qinglong panel's uploaded database.\n"
	}
	plan.Definitions.Header = from + crontab.Header(c.crontabServer())
	file, err := plan.Definitions.Definitions(d.Project, c.crontabServer())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Preview = c.panelPreviewOf(l, plan, file, previewKey(s.id))
	if !store {
		c.renderPanel(w, r, s, http.StatusOK, d)
		return
	}
	if !hmac.Equal([]byte(d.Preview.Sum), []byte(r.PostFormValue("sum"))) {
		d.Stale = true
		c.renderPanel(w, r, s, http.StatusConflict, d)
		return
	}
	st := qlimport.Stores{Secrets: *c.cfg.Secrets, Record: c.cfg.SecretsRecord, Catalog: *c.cfg.Definitions, Dependencies: c.cfg.Dependencies}
	done, err := qlimport.Apply(r.Context(), st, plan, file, s.actor(r))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Preview, d.Applied = nil, appliedView(d.Project, done)
	c.renderPanel(w, r, s, http.StatusOK, d)
}

// panelMistakes are the form's mistakes in language l: a project and a
// zone as every import takes them, the scripts folder an absolute path,
// and either a folder, an absolute path, or an uploaded database.
func (c *Console) panelMistakes(l string, d panelImport) []string {
	out := c.projectZoneMistakes(l, d.Project, d.Zone)
	if d.ScriptsDir != "" {
		out = append(out, c.fieldMistake(l, "imp.scriptsdir", d.ScriptsDir, task.CheckWorkingDir(d.ScriptsDir))...)
	}
	switch {
	case d.Dir == "" && d.Upload == "":
		out = append(out, tr(l, "qlp.source"))
	case d.Dir != "" && d.Upload != "":
		out = append(out, tr(l, "qlp.both"))
	case d.Dir != "" && !filepath.IsAbs(d.Dir):
		out = append(out, tr(l, "qlp.dir")+tr(l, "def.sep")+tr(l, "qlp.absolute"))
	}
	return out
}

// readPanel reads the panel the form names: the folder on this server's
// host, or the uploaded database f, copied to a file of a private
// temporary folder removed before this returns.
func (c *Console) readPanel(r *http.Request, d panelImport, f io.Reader) (qlimport.Panel, error) {
	if d.Upload == "" {
		return qlimport.Read(r.Context(), d.Dir)
	}
	tmp, err := os.MkdirTemp("", "ql-panel-upload-")
	if err != nil {
		return qlimport.Panel{}, err
	}
	defer os.RemoveAll(tmp) //nolint:errcheck // a temporary folder the system cleans up
	db := filepath.Join(tmp, "database.sqlite")
	out, err := os.OpenFile(db, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return qlimport.Panel{}, err
	}
	_, err = io.Copy(out, f)
	if err = errors.Join(err, out.Close()); err != nil {
		return qlimport.Panel{}, err
	}
	return qlimport.ReadDatabase(r.Context(), db, d.Upload)
}

// previewKey is the key of the panel import's sums for the session whose
// cookie holds id: an HMAC of a fixed label under the session's own
// token, as its CSRF token is (sessionCSRF), so that the server started
// again on its data directory, which finds the session stored, derives
// the same key and imports a preview made before it stopped. The sum is
// keyed because it covers the secrets' values: unkeyed, the page would
// carry a hash anyone who saw it could test guessed values against; this
// key is as unguessable as the cookie, which no page shows.
func previewKey(id string) []byte {
	return sessionKey(id, "qinglong panel import preview")
}

// panelPreviewOf is plan, file its definitions file, as the page of
// language l shows it, its sum under key.
func (c *Console) panelPreviewOf(l string, plan qlimport.Plan, file, key []byte) *panelPreview {
	p := &panelPreview{YAML: string(file)}
	for _, it := range plan.Skipped {
		p.Skipped = append(p.Skipped, panelItem{Ref: refIn(l, it.Ref), Why: c.named(itemWhyIn(l, it))})
	}
	for _, it := range plan.Notes {
		p.Notes = append(p.Notes, panelItem{Ref: refIn(l, it.Ref), Why: c.named(itemWhyIn(l, it))})
	}
	sum := hmac.New(sha256.New, key)
	sum.Write(file)
	for _, e := range plan.Definitions.Entries {
		shown, whole := commandShown(l, e)
		p.Tasks = append(p.Tasks, panelTask{Ref: refIn(l, plan.Refs[e.Line-1]), Name: e.Name, Title: e.Title, Cron: e.Cron, Zone: e.Timezone, Command: shown, Script: whole, Enabled: !e.Disabled})
		if e.Disabled {
			p.Disabled++
		}
	}
	for _, s := range plan.Secrets {
		p.Secrets = append(p.Secrets, panelSecret{Name: s.Name, Variable: s.Variable, Values: s.Values, Given: s.Given, Remarks: s.Remarks})
		sum.Write([]byte("\x00" + s.Name + "\x00" + s.Value))
	}
	for _, k := range deps.Kinds {
		pk := panelKind{Kind: k}
		for _, d := range plan.Dependencies {
			if d.Kind == k {
				pk.Specs = append(pk.Specs, d.Spec)
				sum.Write([]byte("\x00" + string(k) + "\x00" + d.Spec))
			}
		}
		if len(pk.Specs) > 0 {
			p.Dependencies = append(p.Dependencies, pk)
		}
	}
	for _, pr := range plan.Definitions.Problems {
		it := panelItem{Ref: refIn(l, plan.Refs[pr.Line-1]), Why: c.named(problemWhyIn(l, pr, true, c.edge()))}
		if pr.Kind == crontab.NotConverted {
			p.Skipped = append(p.Skipped, it)
		} else {
			p.Notes = append(p.Notes, it)
		}
	}
	p.Sum = hex.EncodeToString(sum.Sum(nil))
	return p
}

// appliedView is what done changed, in project.
func appliedView(project string, done qlimport.Applied) *panelApplied {
	a := &panelApplied{Secrets: done.Secrets, SecretsUnchanged: done.SecretsUnchanged, DeclaredAlready: done.DeclaredAlready, Changed: done.Changed(), ProjectName: project}
	for _, r := range done.Results {
		if r.Change == catalog.Unchanged {
			a.Unchanged++
			continue
		}
		a.Changes = append(a.Changes, r.String())
	}
	for _, p := range done.Declared {
		a.Declared = append(a.Declared, string(p.Kind)+" "+p.Spec)
	}
	return a
}

func (c *Console) renderPanel(w http.ResponseWriter, r *http.Request, s *session, status int, d panelImport) {
	d.CommandLine = !c.canImportPanel()
	if !d.CommandLine {
		var err error
		if d.Projects, err = c.projectChoices(r.Context()); err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.Projects = unarchived(d.Projects)
	}
	c.render(w, r, status, "qlpanel", s, d)
}
