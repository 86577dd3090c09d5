package console

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/scripts"
)

// scriptsData is what the Scripts page shows: one of its views (Mode) of
// the folder at Path, or of the file at Path.
type scriptsData struct {
	// Here is false where the commands run on other machines (a
	// cluster's workers), whose hosts hold the scripts: the page then
	// says so instead.
	Here bool
	// Folder is the scripts folder's path on this host.
	Folder string
	// HiddenFrom names the --run-as account that cannot reach the folder.
	HiddenFrom string
	// Mode is list, file, edit, new, rename or delete.
	Mode string
	Path string
	// Dir is the folder the view is in (a file's, or Path itself).
	Dir     string
	Crumbs  []crumb
	Entries []scriptRow
	// Total is how many entries the folder listed holds, of which Entries
	// are a page; NextURL is the page after it ("" on the last).
	Total   int
	NextURL string
	File    *scriptFile
	// Text is what the editor shows: the file's content, or what a
	// refused save or new file sent.
	Text string
	// Loaded is the digest of the content the editor loaded.
	Loaded string
	// Conflict is the file as it is now, beside Text, when a save was
	// refused because it changed since it was loaded.
	Conflict *scriptFile
	// Error is why the last form did nothing, in the page's language;
	// Sent says the view answers a form, whose text the editor keeps.
	Error string
	Sent  bool
	// Uploaded names the files an upload wrote before it was refused.
	Uploaded string
	// CRLF: the editor's text ends its lines with CR LF, as the file did.
	CRLF bool
	// Entries counts what a folder to delete holds.
	Count int
	// NewTask is the New task form's address prefilled for the file, ""
	// for a file of no interpreter known here; Needs says what the host
	// must have to run it.
	NewTask, Needs string
	// MaxEdit and MaxUpload are the limits, as the page says them.
	MaxEdit, MaxUpload string
}

// crumb is one step of the path above the view, the folder first.
type crumb struct{ Name, Path string }

// scriptRow is one entry of a listing, as shown.
type scriptRow struct {
	scripts.Entry
	Size string
}

// scriptFile is a file as shown.
type scriptFile struct {
	scripts.File
	SizeText string
	Content  string
}

// The forms' bodies: the editor's text escaped as a form may send it (at
// most three bytes a byte), and an upload's files with its fields.
const (
	maxScriptForm = 3*scripts.MaxEdit + maxForm
	maxUploadForm = scripts.MaxUpload + maxForm
)

// scriptsPage lists a folder of the scripts folder (?path=).
func (c *Console) scriptsPage(w http.ResponseWriter, r *http.Request, s *session) {
	d := scriptsData{Mode: "list", Path: r.URL.Query().Get("path")}
	c.renderScripts(w, r, s, http.StatusOK, d)
}

// scriptFilePage shows a file: its text, or that it is binary or too large
// to show, with its download.
func (c *Console) scriptFilePage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderScripts(w, r, s, http.StatusOK, scriptsData{Mode: "file", Path: r.URL.Query().Get("path")})
}

// scriptEditPage shows a file's text in the editor.
func (c *Console) scriptEditPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderScripts(w, r, s, http.StatusOK, scriptsData{Mode: "edit", Path: r.URL.Query().Get("path")})
}

// scriptNewPage is the New file form in the folder ?path=.
func (c *Console) scriptNewPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderScripts(w, r, s, http.StatusOK, scriptsData{Mode: "new", Path: r.URL.Query().Get("path")})
}

// scriptRenamePage is the Rename or move form of ?path=.
func (c *Console) scriptRenamePage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderScripts(w, r, s, http.StatusOK, scriptsData{Mode: "rename", Path: r.URL.Query().Get("path")})
}

// scriptDeletePage asks to confirm the delete of ?path=, saying how much
// a folder holds.
func (c *Console) scriptDeletePage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderScripts(w, r, s, http.StatusOK, scriptsData{Mode: "delete", Path: r.URL.Query().Get("path")})
}

// renderScripts fills d's view from the folder and shows it; a path the
// folder refuses is the error page's.
func (c *Console) renderScripts(w http.ResponseWriter, r *http.Request, s *session, status int, d scriptsData) {
	f := c.cfg.Scripts
	if f == nil {
		c.render(w, r, http.StatusOK, "scripts", s, d)
		return
	}
	l := lang(r)
	d.Here, d.Folder, d.HiddenFrom = true, f.Dir, c.cfg.ScriptsHiddenFrom
	d.MaxEdit, d.MaxUpload = sizeText(scripts.MaxEdit), sizeText(scripts.MaxUpload)
	p, err := scripts.Clean(d.Path)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Path = p
	switch d.Mode {
	case "list", "new":
		d.Dir = p
		// The new file form lists nothing: a page of one entry checks
		// that the path is a folder.
		limit := scripts.PageEntries
		if d.Mode == "new" {
			limit = 1
		}
		page, err := f.ListPage(p, r.URL.Query().Get("after"), limit)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		if d.Mode == "list" {
			for _, e := range page.Entries {
				d.Entries = append(d.Entries, scriptRow{Entry: e, Size: sizeText(e.Size)})
			}
			d.Total = page.Total
			if page.Next != "" {
				d.NextURL = "/scripts?" + url.Values{"path": {p}, "after": {page.Next}}.Encode()
			}
		}
	case "file", "edit":
		d.Dir = scripts.Parent(p)
		file, err := f.Read(p, scripts.MaxEdit)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.File = shownFile(file)
		if d.Mode == "edit" && !d.Sent {
			if !file.Text || file.Large {
				c.fail(w, r, s, notEditable(file))
				return
			}
			d.Text, d.Loaded = string(file.Content), file.Digest
		}
		d.NewTask, d.Needs = newTaskFromScript(l, f.Dir, p)
	case "rename", "delete":
		d.Dir = scripts.Parent(p)
		e, err := f.Stat(p)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		if d.Mode == "delete" && e.Dir {
			if d.Count, err = f.Count(p); err != nil {
				c.fail(w, r, s, err)
				return
			}
		}
		d.Entries = []scriptRow{{Entry: e, Size: sizeText(e.Size)}}
	}
	d.CRLF = strings.Contains(d.Text, "\r\n")
	d.Crumbs = crumbsOf(d.Dir)
	c.render(w, r, status, "scripts", s, d)
}

// shownFile is file as the page shows it.
func shownFile(file scripts.File) *scriptFile {
	return &scriptFile{File: file, SizeText: sizeText(file.Size), Content: string(file.Content)}
}

// notEditable refuses the editor a binary file, or one over the limit.
func notEditable(file scripts.File) error {
	if file.Large {
		return scripts.TooLarge(file.Path, file.Size, scripts.MaxEdit)
	}
	return scripts.NotText(file.Path)
}

// crumbsOf are the steps from the folder down to dir.
func crumbsOf(dir string) []crumb {
	out := []crumb{{Name: "scripts", Path: ""}}
	if dir == "" {
		return out
	}
	acc := ""
	for part := range strings.SplitSeq(dir, "/") {
		acc = scripts.Join(acc, part)
		out = append(out, crumb{Name: part, Path: acc})
	}
	return out
}

// sizeText is n bytes as a listing says it: bytes, else KiB or MiB with
// one decimal.
func sizeText(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// scriptDownload sends a file as an attachment, whatever it holds.
func (c *Console) scriptDownload(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	p := r.URL.Query().Get("path")
	rc, size, err := c.cfg.Scripts.Open(p)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	defer rc.Close() //nolint:errcheck // read only
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(p)}))
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	_, _ = io.Copy(w, rc) // the browser went away; nothing to do
}

// scriptSave saves the editor's text over the file when the file is
// still the one the editor loaded; a file changed since is shown as it is
// now beside what was sent, and nothing is written.
func (c *Console) scriptSave(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	l := lang(r)
	p, text, loaded := r.PostFormValue("path"), editorText(r), r.PostFormValue("loaded")
	saved, err := c.cfg.Scripts.Save(p, []byte(text), loaded)
	var changed *scripts.ChangedError
	switch {
	case errors.As(err, &changed):
		// Saved again, the text replaces the file as it is now, which
		// the page shows beside it.
		c.renderScripts(w, r, s, statusOf(err), scriptsData{Mode: "edit", Path: p, Text: text, Loaded: changed.Current.Digest, Sent: true,
			Conflict: shownFile(changed.Current), Error: c.errorText(l, err)})
		return
	case err != nil:
		c.refuseScript(w, r, s, scriptsData{Mode: "edit", Path: p, Text: text, Loaded: loaded}, err)
		return
	}
	if c.recordScript(w, r, s, audit.Script(audit.ScriptSaved, s.actor(r), saved.Path, saved.Size, saved.Digest, throughNote(saved)), "script "+saved.Path+" was saved") {
		done := fmt.Sprintf(tr(l, "scr.done.saved"), saved.Path, sizeText(saved.Size))
		if saved.Through != "" {
			done = fmt.Sprintf(tr(l, "scr.done.through"), saved.Path, sizeText(saved.Size), saved.Through)
		}
		c.redirectWith(w, r, s, "/scripts/file?path="+url.QueryEscape(saved.Path), flash{Message: done})
	}
}

// editorText is the editor's text with its line breaks as the file held
// them: a browser sends every line of a textarea ended by CR LF, which
// only a file that had them keeps.
func editorText(r *http.Request) string {
	if r.PostFormValue("crlf") == "1" {
		return r.PostFormValue("text")
	}
	return textArea(r, "text")
}

// scriptCreate makes a new file of the form's name and text in its
// folder.
func (c *Console) scriptCreate(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	l := lang(r)
	dir, text := r.PostFormValue("dir"), textArea(r, "text")
	back := scriptsData{Mode: "new", Path: dir, Text: text}
	name, err := scripts.Name(strings.TrimSpace(r.PostFormValue("name")))
	if err != nil {
		c.refuseScript(w, r, s, back, err)
		return
	}
	saved, err := c.cfg.Scripts.Put(scripts.Join(dir, name), strings.NewReader(text), false, scripts.MaxEdit)
	if err != nil {
		c.refuseScript(w, r, s, back, err)
		return
	}
	if c.recordScript(w, r, s, audit.Script(audit.ScriptCreated, s.actor(r), saved.Path, saved.Size, saved.Digest, ""), "script "+saved.Path+" was created") {
		c.redirectWith(w, r, s, "/scripts/file?path="+url.QueryEscape(saved.Path), flash{Message: fmt.Sprintf(tr(l, "scr.done.created"), saved.Path)})
	}
}

// scriptMkdir makes a new folder of the form's name in its folder.
func (c *Console) scriptMkdir(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	l := lang(r)
	dir := r.PostFormValue("dir")
	name, err := scripts.Name(strings.TrimSpace(r.PostFormValue("name")))
	if err == nil {
		err = c.cfg.Scripts.Mkdir(scripts.Join(dir, name))
	}
	if err != nil {
		c.refuseScript(w, r, s, scriptsData{Mode: "list", Path: dir}, err)
		return
	}
	p := scripts.Join(dir, name)
	if c.recordScript(w, r, s, audit.ScriptFolder(audit.ScriptFolderCreated, s.actor(r), p, ""), "folder "+p+" was created") {
		c.redirectWith(w, r, s, "/scripts?path="+url.QueryEscape(p), flash{Message: fmt.Sprintf(tr(l, "scr.done.folder"), p)})
	}
}

// scriptUpload writes the form's files into its folder: every name is
// checked before any is written, and a file already there is replaced
// only when the form says so.
func (c *Console) scriptUpload(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	l := lang(r)
	dir := r.PostFormValue("dir")
	back := scriptsData{Mode: "list", Path: dir}
	replace := r.PostFormValue("replace") == "1"
	var files []*multipartFile
	if r.MultipartForm != nil {
		for _, fh := range r.MultipartForm.File["files"] {
			files = append(files, &multipartFile{fh})
		}
	}
	if len(files) == 0 {
		c.refuseScript(w, r, s, back, scripts.NoFiles())
		return
	}
	for _, f := range files {
		if err := f.check(c.cfg.Scripts, dir, replace); err != nil {
			c.refuseScript(w, r, s, back, err)
			return
		}
	}
	var names []string
	for _, f := range files {
		saved, err := f.put(c.cfg.Scripts, dir, replace)
		if err != nil {
			back.Uploaded = strings.Join(names, ", ")
			c.refuseScript(w, r, s, back, err)
			return
		}
		if !c.recordScript(w, r, s, audit.Script(audit.ScriptUploaded, s.actor(r), saved.Path, saved.Size, saved.Digest, replacedNote(saved)), "script "+saved.Path+" was uploaded") {
			return
		}
		names = append(names, saved.Path)
	}
	c.redirectWith(w, r, s, "/scripts?path="+url.QueryEscape(dir), flash{Message: fmt.Sprintf(tr(l, "scr.done.uploaded"), len(names), strings.Join(names, ", "))})
}

func replacedNote(s scripts.Saved) string {
	if s.Created {
		return ""
	}
	if s.Through != "" {
		return "replaced " + throughNote(s)
	}
	return "replaced"
}

// throughNote is what the audit trail adds of a write through a symbolic
// link: the file written.
func throughNote(s scripts.Saved) string {
	if s.Through == "" {
		return ""
	}
	return "through the link, to " + s.Through
}

// scriptRename moves a file or folder to the form's new path.
func (c *Console) scriptRename(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	l := lang(r)
	from, to := r.PostFormValue("path"), strings.TrimSpace(r.PostFormValue("to"))
	if err := c.cfg.Scripts.Rename(from, to); err != nil {
		c.refuseScript(w, r, s, scriptsData{Mode: "rename", Path: from}, err)
		return
	}
	from, _ = scripts.Clean(from)
	to, _ = scripts.Clean(to)
	if c.recordScript(w, r, s, audit.ScriptFolder(audit.ScriptRenamed, s.actor(r), to, "from "+from), "script "+from+" was renamed to "+to) {
		c.redirectWith(w, r, s, "/scripts?path="+url.QueryEscape(scripts.Parent(to)), flash{Message: fmt.Sprintf(tr(l, "scr.done.renamed"), from, to)})
	}
}

// scriptDelete deletes the form's file or folder, which the confirm page
// sends; a folder that holds anything goes only with whole=1, which that
// page sends once it said how much the folder holds.
func (c *Console) scriptDelete(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Scripts == nil {
		c.renderScripts(w, r, s, http.StatusOK, scriptsData{})
		return
	}
	l := lang(r)
	p := r.PostFormValue("path")
	gone, err := c.cfg.Scripts.Remove(p, r.PostFormValue("whole") == "1")
	if err != nil {
		c.refuseScript(w, r, s, scriptsData{Mode: "delete", Path: p}, err)
		return
	}
	p, _ = scripts.Clean(p)
	e := audit.Script(audit.ScriptDeleted, s.actor(r), p, gone.Size, gone.Digest, "")
	if gone.Dir {
		e = audit.ScriptFolder(audit.ScriptDeleted, s.actor(r), p, fmt.Sprintf("folder of %d entries", gone.Entries))
	}
	if c.recordScript(w, r, s, e, "script "+p+" was deleted") {
		c.redirectWith(w, r, s, "/scripts?path="+url.QueryEscape(scripts.Parent(p)), flash{Message: fmt.Sprintf(tr(l, "scr.done.deleted"), p)})
	}
}

// refuseScript says on the form's own view why it did nothing; a path
// the view itself cannot show (gone, outside) is the error page's.
func (c *Console) refuseScript(w http.ResponseWriter, r *http.Request, s *session, d scriptsData, err error) {
	status := statusOf(err)
	// A link not followed: the editor's view would read through it, and
	// say the view's refusal instead of this one.
	if status >= http.StatusInternalServerError || qlerror.ReasonOf(err) == scripts.RefusalLink {
		c.fail(w, r, s, err)
		return
	}
	// What was typed stays in the editor: the view reads the file again
	// only for what it shows beside it.
	d.Sent = true
	d.Error = c.errorText(lang(r), err)
	retryAfter(w, err)
	c.renderScripts(w, r, s, status, d)
}

// recordScript records e once the change it records is done in the
// folder; a record that cannot be written is the change standing
// unrecorded (audit.RecordDone), said on the error page and logged with
// who made it. It reports whether the record was written.
func (c *Console) recordScript(w http.ResponseWriter, r *http.Request, s *session, e audit.Entry, done string) bool {
	if c.cfg.ScriptsRecord == nil {
		return true
	}
	if err := audit.RecordDone(r.Context(), c.cfg.ScriptsRecord, e, done+" in "+c.cfg.Scripts.Dir); err != nil {
		c.cfg.Log.Error("console: script change not recorded", "code", audit.CodeNotRecorded, "action", string(e.Action), "script", e.ObjectName, "actor", e.Actor, "error", err.Error())
		c.fail(w, r, s, err)
		return false
	}
	return true
}
