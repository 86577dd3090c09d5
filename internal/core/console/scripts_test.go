package console

import (
	"bytes"
	"html"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/scripts"
)

// scriptsSite is a console over a real store with a scripts folder of its
// own (dir), whose changes the store's audit trail records.
type scriptsSite struct {
	*batchSite
	dir string
}

func newScriptsSite(t *testing.T, configure ...func(*Config)) *scriptsSite {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scripts")
	f := &scripts.Folder{Dir: dir}
	if err := f.Ensure(); err != nil {
		t.Fatal(err)
	}
	site := newBatchSite(t, func(cfg *Config) {
		canPublish(cfg)
		cfg.Scripts = f
		for _, c := range configure {
			c(cfg)
		}
	})
	site.c.cfg.ScriptsRecord = site.st
	return &scriptsSite{batchSite: site, dir: dir}
}

// write puts a file in the folder, as someone on the host would.
func (s *scriptsSite) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(s.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read is a file of the folder, "" when it is not there.
func (s *scriptsSite) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(rel)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// upload sends files (name → content) to dir as the upload form does.
func (s *scriptsSite) upload(t *testing.T, dir string, replace bool, files ...[2]string) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fields := map[string]string{"csrf": "k", "dir": dir}
	if replace {
		fields["replace"] = "1"
	}
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile("files", f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/scripts/upload", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: string(apitoken.Admin)})
	w := httptest.NewRecorder()
	s.c.ServeHTTP(w, r)
	s.keep(apitoken.Admin, w)
	if to := w.Header().Get("Location"); w.Code == http.StatusSeeOther {
		return s.send(apitoken.Admin, to, nil)
	}
	return w
}

// records are the trail's script records, newest first.
func (s *scriptsSite) records(t *testing.T) []audit.Record {
	t.Helper()
	page, err := s.st.AuditList(t.Context(), audit.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Record
	for _, r := range page.Records {
		if r.ObjectKind == audit.KindScript {
			out = append(out, r)
		}
	}
	return out
}

var loadedField = regexp.MustCompile(`name="loaded" value="([0-9a-f]*)"`)

// The scripts folder is the only place the page reads or writes: a path
// naming `..` or an absolute one is refused as no path of the folder's,
// and a symbolic link leading outside it is never followed, to read, list,
// write, rename into, delete through or download; the files outside stay
// as they were and no page shows their content.
func TestAScriptPathCannotLeaveTheScriptsFolder(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	outside := t.TempDir()
	const secret = "outside-content-never-shown"
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(site.dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(site.dir, "outfile")); err != nil {
		t.Fatal(err)
	}
	site.write(t, "a.js", "console.log(1)\n")
	refused := func(what string, w *httptest.ResponseRecorder, reason string) {
		t.Helper()
		body := html.UnescapeString(w.Body.String())
		if w.Code < 400 || strings.Contains(body, secret) {
			t.Errorf("%s: %d; want it refused, showing nothing of the file outside:\n%s", what, w.Code, body)
		}
		want := map[string]string{"invalid": "script path", "outside": "leads outside the scripts folder"}[reason]
		if !strings.Contains(body, want) {
			t.Errorf("%s: the page does not say %q:\n%s", what, want, body)
		}
	}
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret.txt", "a/../../secret.txt", filepath.Join(outside, "secret.txt")} {
		for _, page := range []string{"/scripts/file", "/scripts", "/scripts/edit", "/scripts/download"} {
			refused(page+" "+p, site.send(apitoken.Admin, page+"?path="+url.QueryEscape(p), nil), "invalid")
		}
	}
	for _, page := range []string{"/scripts/file?path=outfile", "/scripts/edit?path=outfile", "/scripts/download?path=outfile", "/scripts?path=out", "/scripts/file?path=out/secret.txt"} {
		refused(page, site.send(apitoken.Admin, page, nil), "outside")
	}
	// Writes through the links, and moves out of the folder.
	refused("save through a link", site.send(apitoken.Admin, "/scripts/edit", url.Values{"path": {"outfile"}, "text": {"x"}, "loaded": {scripts.Digest([]byte(secret))}}), "outside")
	refused("new file in a linked folder", site.send(apitoken.Admin, "/scripts/new", url.Values{"dir": {"out"}, "name": {"new.js"}, "text": {"x"}}), "outside")
	refused("new folder in a linked folder", site.send(apitoken.Admin, "/scripts/mkdir", url.Values{"dir": {"out"}, "name": {"d"}}), "outside")
	refused("move into a linked folder", site.send(apitoken.Admin, "/scripts/rename", url.Values{"path": {"a.js"}, "to": {"out/a.js"}}), "outside")
	refused("move up and out", site.send(apitoken.Admin, "/scripts/rename", url.Values{"path": {"a.js"}, "to": {"../a.js"}}), "invalid")
	refused("delete through a link", site.send(apitoken.Admin, "/scripts/delete", url.Values{"path": {"out/secret.txt"}}), "outside")
	refused("upload into a linked folder", site.upload(t, "out", false, [2]string{"up.js", "x"}), "outside")
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); len(entries) != 1 || string(got) != secret {
		t.Errorf("the folder outside changed: %d entries, secret.txt %q", len(entries), got)
	}
	if site.read(t, "a.js") == "" {
		t.Error("a.js left the folder")
	}
	// A link leading out is deleted as a link: the confirm page names it,
	// and the delete leaves what it led to.
	if w := site.send(apitoken.Admin, "/scripts/delete?path=outfile", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="scr-delete-confirm"`) {
		t.Errorf("the confirm page of a link leading out: %d:\n%s", w.Code, w.Body)
	}
	if w := site.do(apitoken.Admin, "/scripts/delete", url.Values{"path": {"outfile"}}); w.Code != http.StatusOK {
		t.Errorf("the delete of a link leading out: %d:\n%s", w.Code, w.Body)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(got) != secret {
		t.Errorf("deleting the link changed what it led to: %q", got)
	}
	// The listing names the links without following the one leading out.
	w := site.send(apitoken.Admin, "/scripts", nil)
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `href="/scripts?path=out"`) || !strings.Contains(w.Body.String(), "a link leading outside the folder") {
		t.Errorf("the listing: %d; want the links listed as leading outside, not linked:\n%s", w.Code, w.Body)
	}
}

// A save is refused when the file changed since the editor loaded it
// (the digest the form carries is no longer the file's): the file keeps
// the other change, and the page shows the file as it is now beside the
// text sent. Saved again from that page, the text replaces it.
func TestASaveOfAScriptChangedSinceItWasLoadedIsRefusedWithBothShown(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	site.write(t, "jd_bean.js", "const v = 1\n")
	page := site.send(apitoken.Admin, "/scripts/edit?path=jd_bean.js", nil)
	m := loadedField.FindStringSubmatch(page.Body.String())
	if page.Code != http.StatusOK || m == nil || !strings.Contains(page.Body.String(), "const v = 1") {
		t.Fatalf("the editor: %d, want the file's text and its digest:\n%s", page.Code, page.Body)
	}
	site.write(t, "jd_bean.js", "const v = 2 // changed on the host\n")
	w := site.send(apitoken.Admin, "/scripts/edit", url.Values{"path": {"jd_bean.js"}, "text": {"const v = 3 // mine\r\n"}, "loaded": {m[1]}})
	body := html.UnescapeString(w.Body.String())
	if w.Code != http.StatusConflict || !strings.Contains(body, "changed since the editor loaded it") ||
		!strings.Contains(body, `id="scr-current">const v = 2 // changed on the host`) || !strings.Contains(body, "const v = 3 // mine") {
		t.Fatalf("a save of a changed file: %d; want 409 script_changed showing the current content beside the text sent:\n%s", w.Code, body)
	}
	if got := site.read(t, "jd_bean.js"); got != "const v = 2 // changed on the host\n" {
		t.Fatalf("the refused save wrote %q", got)
	}
	again := loadedField.FindStringSubmatch(w.Body.String())
	if again == nil || again[1] != scripts.Digest([]byte("const v = 2 // changed on the host\n")) {
		t.Fatalf("the conflict's form does not carry the current file's digest: %v", again)
	}
	if w := site.do(apitoken.Admin, "/scripts/edit", url.Values{"path": {"jd_bean.js"}, "text": {"const v = 3 // mine\r\n"}, "loaded": {again[1]}}); w.Code != http.StatusOK {
		t.Fatalf("the save from the conflict's page: %d:\n%s", w.Code, w.Body)
	}
	if got := site.read(t, "jd_bean.js"); got != "const v = 3 // mine\n" {
		t.Errorf("the file after the second save: %q; want the text sent, its lines ended by LF", got)
	}
}

// Limits: the editor saves (and makes) files of at most 1 MiB, an upload
// carries at most 16 MiB; over either, nothing is written.
func TestScriptSizeCapsRefuseAnEditOverOneMiBAndAnUploadOverSixteenMiB(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	big := strings.Repeat("a", scripts.MaxEdit+1)
	w := site.send(apitoken.Admin, "/scripts/new", url.Values{"dir": {""}, "name": {"big.js"}, "text": {big}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "over the limit of 1048576") {
		t.Errorf("a new file over 1 MiB: %d; want 400 script_too_large", w.Code)
	}
	site.write(t, "small.js", "x\n")
	page := site.send(apitoken.Admin, "/scripts/edit?path=small.js", nil)
	m := loadedField.FindStringSubmatch(page.Body.String())
	if m == nil {
		t.Fatalf("the editor has no digest:\n%s", page.Body)
	}
	w = site.send(apitoken.Admin, "/scripts/edit", url.Values{"path": {"small.js"}, "text": {big}, "loaded": {m[1]}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "over the limit of 1048576") {
		t.Errorf("a save over 1 MiB: %d; want 400 script_too_large", w.Code)
	}
	w = site.upload(t, "", false, [2]string{"huge.bin", strings.Repeat("b", scripts.MaxUpload+1)})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "over the limit of 16777216") {
		t.Errorf("an upload of a file over 16 MiB: %d; want 400 script_too_large", w.Code)
	}
	nine := strings.Repeat("c", 9<<20)
	if w = site.upload(t, "", false, [2]string{"one.bin", nine}, [2]string{"two.bin", nine}); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("an upload of 18 MiB in all: %d; want 413", w.Code)
	}
	if site.read(t, "big.js") != "" || site.read(t, "huge.bin") != "" || site.read(t, "one.bin") != "" || site.read(t, "small.js") != "x\n" {
		t.Error("a refused file was written")
	}
}

// Every change of the folder is in the audit trail, by the script's path,
// with its size and sha256, never its content.
func TestTheAuditTrailRecordsScriptChangesWithoutTheirContent(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const content = "const cookie = 'content-never-recorded'\n"
	steps := []struct {
		path string
		form url.Values
	}{
		{"/scripts/mkdir", url.Values{"dir": {""}, "name": {"sub"}}},
		{"/scripts/new", url.Values{"dir": {"sub"}, "name": {"a.js"}, "text": {content}}},
		{"/scripts/edit", url.Values{"path": {"sub/a.js"}, "text": {content + "// more\n"}, "loaded": {scripts.Digest([]byte(content))}}},
		{"/scripts/rename", url.Values{"path": {"sub/a.js"}, "to": {"sub/b.js"}}},
		{"/scripts/delete", url.Values{"path": {"sub/b.js"}}},
	}
	for _, s := range steps {
		if w := site.do(apitoken.Admin, s.path, s.form); w.Code != http.StatusOK {
			t.Fatalf("%s: %d:\n%s", s.path, w.Code, w.Body)
		}
	}
	if w := site.upload(t, "sub", false, [2]string{"c.py", content}); w.Code != http.StatusOK {
		t.Fatalf("upload: %d:\n%s", w.Code, w.Body)
	}
	recs := site.records(t)
	var got []string
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		got = append(got, string(r.Action)+" "+r.ObjectName+" "+r.Note)
		if strings.Contains(r.Note+r.ObjectName+r.ObjectID, "content-never-recorded") {
			t.Errorf("a record holds the content: %+v", r)
		}
		if !strings.HasPrefix(r.Actor, "console:token:web-admin@") {
			t.Errorf("record %s names %q", r.Action, r.Actor)
		}
	}
	sum, sumMore := scripts.Digest([]byte(content)), scripts.Digest([]byte(content+"// more\n"))
	size, sizeMore := strconv.Itoa(len(content)), strconv.Itoa(len(content+"// more\n"))
	want := []string{
		"script.folder_created sub ",
		"script.created sub/a.js " + size + " bytes, sha256 " + sum,
		"script.saved sub/a.js " + sizeMore + " bytes, sha256 " + sumMore,
		"script.renamed sub/b.js from sub/a.js",
		"script.deleted sub/b.js " + sizeMore + " bytes, sha256 " + sumMore,
		"script.uploaded sub/c.py " + size + " bytes, sha256 " + sum,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the trail's script records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The folder is every project's: a user bound to projects is refused its
// page and never offered it, whatever its role, and a session below admin
// is refused it too; an admin of every project gets it in the nav.
func TestABoundUserIsRefusedTheScriptsPageAndNeverOfferedIt(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	if w := site.send(apitoken.Admin, "/runs", nil); !strings.Contains(w.Body.String(), `id="nav-scripts"`) {
		t.Fatalf("an admin's nav has no Scripts:\n%s", w.Body)
	}
	for _, scope := range []apitoken.Scope{apitoken.Read, apitoken.Operate} {
		if w := site.send(scope, "/runs", nil); strings.Contains(w.Body.String(), `id="nav-scripts"`) {
			t.Errorf("a %s session's nav offers Scripts", scope)
		}
		if w := site.send(scope, "/scripts", nil); w.Code != http.StatusForbidden {
			t.Errorf("/scripts for a %s session: %d; want 403", scope, w.Code)
		}
	}
	bound := newScriptsSite(t)
	bound.c.cfg.Users = boundToAlpha{bound.st}
	owner := ownerSession(t, bound.batchSite, "root")
	for _, p := range []string{"/scripts", "/scripts/file?path=a.js"} {
		w := bound.sendAs(owner, p)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "is bound to the project alpha") {
			t.Errorf("%s for an owner bound to alpha: %d; want 403 project_not_in_scope:\n%s", p, w.Code, w.Body)
		}
	}
	if w := bound.sendAs(owner, "/runs"); w.Code != http.StatusOK || strings.Contains(w.Body.String(), `id="nav-scripts"`) {
		t.Errorf("the runs page of an owner bound to alpha: %d, offering Scripts:\n%s", w.Code, w.Body)
	}
}

// ownerSession signs an owner account of the store in and returns its
// session's id.
func ownerSession(t *testing.T, site *batchSite, name string) string {
	t.Helper()
	const hash = "$argon2id$placeholder"
	id := ids.New()
	if _, err := site.st.UserCreate(t.Context(), account.NewUser{ID: id, Name: name, Role: account.Owner, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	site.c.sessions.add(&session{id: name, csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: name, scope: account.Owner.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	return name
}

// sendAs is a GET of path by the session id.
func (b *batchSite) sendAs(id, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: id})
	w := httptest.NewRecorder()
	b.c.ServeHTTP(w, r)
	return w
}

// heldClock is a server holding every write while its clock reads behind
// its database.
type heldClock struct{}

func (heldClock) refusal() error                  { return hold.ClockBehindDatabase(0, 120_000, 0) }
func (h heldClock) Admit() (func(), error)        { return nil, h.refusal() }
func (h heldClock) AdmitUndated() (func(), error) { return nil, h.refusal() }
func (h heldClock) Held() error                   { return h.refusal() }

// While the clock is held, no change of the folder is made or recorded;
// its files are still shown.
func TestAScriptChangeIsRefusedWhileTheClockIsHeld(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t, func(cfg *Config) { cfg.Writes = heldClock{} })
	site.write(t, "a.js", "1\n")
	for _, s := range []struct {
		path string
		form url.Values
	}{
		{"/scripts/new", url.Values{"dir": {""}, "name": {"b.js"}, "text": {"x"}}},
		{"/scripts/edit", url.Values{"path": {"a.js"}, "text": {"2\n"}, "loaded": {scripts.Digest([]byte("1\n"))}}},
		{"/scripts/delete", url.Values{"path": {"a.js"}}},
		{"/scripts/mkdir", url.Values{"dir": {""}, "name": {"d"}}},
		{"/scripts/rename", url.Values{"path": {"a.js"}, "to": {"c.js"}}},
	} {
		if w := site.send(apitoken.Admin, s.path, s.form); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "behind") {
			t.Errorf("%s while the clock is held: %d; want 503 clock_behind_database:\n%s", s.path, w.Code, w.Body)
		}
	}
	if w := site.upload(t, "", false, [2]string{"u.js", "x"}); w.Code != http.StatusServiceUnavailable {
		t.Errorf("an upload while the clock is held: %d; want 503", w.Code)
	}
	entries, _ := os.ReadDir(site.dir)
	if len(entries) != 1 || site.read(t, "a.js") != "1\n" || len(site.records(t)) != 0 {
		t.Errorf("the held changes wrote %d entries (a.js %q) and %d records", len(entries), site.read(t, "a.js"), len(site.records(t)))
	}
	if w := site.send(apitoken.Admin, "/scripts/file?path=a.js", nil); w.Code != http.StatusOK {
		t.Errorf("a file's page while the clock is held: %d", w.Code)
	}
}

// An upload writes every file it carries; one whose name is taken
// refuses the whole upload, writing none, unless it says to replace.
func TestAnUploadWritesEveryFileItCarries(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	site.write(t, "lib/old.js", "old\n")
	w := site.upload(t, "lib", false, [2]string{"jd_a.js", "a\n"}, [2]string{"jd_b.py", "b\n"}, [2]string{`C:\Users\me\jd_c.sh`, "c\n"})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Uploaded 3 file(s)") {
		t.Fatalf("an upload of three files: %d:\n%s", w.Code, w.Body)
	}
	for name, want := range map[string]string{"lib/jd_a.js": "a\n", "lib/jd_b.py": "b\n", "lib/jd_c.sh": "c\n"} {
		if got := site.read(t, name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	w = site.upload(t, "lib", false, [2]string{"jd_new.js", "n\n"}, [2]string{"old.js", "replaced\n"})
	if w.Code != http.StatusConflict || site.read(t, "lib/jd_new.js") != "" || site.read(t, "lib/old.js") != "old\n" {
		t.Errorf("an upload of a name taken, not replacing: %d, wrote jd_new.js %q, old.js %q; want 409 script_exists and nothing written", w.Code, site.read(t, "lib/jd_new.js"), site.read(t, "lib/old.js"))
	}
	if w = site.upload(t, "lib", true, [2]string{"old.js", "replaced\n"}); w.Code != http.StatusOK || site.read(t, "lib/old.js") != "replaced\n" {
		t.Errorf("an upload replacing old.js: %d, old.js %q", w.Code, site.read(t, "lib/old.js"))
	}
}

// A delete is asked first, on a page of its own; a folder that holds
// anything goes only by that page's confirmation, which says how much it
// holds: a delete without it is refused and leaves the folder whole.
func TestDeletingAScriptOrAFolderIsConfirmedFirst(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	site.write(t, "jd/a.js", "a\n")
	site.write(t, "jd/deep/b.js", "b\n")
	site.write(t, "c.js", "c\n")
	page := site.send(apitoken.Admin, "/scripts/delete?path=jd", nil)
	body := page.Body.String()
	if page.Code != http.StatusOK || !strings.Contains(body, "This folder holds 3 entries") || !strings.Contains(body, `name="whole" value="1"`) {
		t.Fatalf("the confirm page of a folder: %d; want it to count 3 entries and confirm the whole:\n%s", page.Code, body)
	}
	if site.read(t, "jd/a.js") == "" {
		t.Fatal("asking deleted the folder")
	}
	w := site.send(apitoken.Admin, "/scripts/delete", url.Values{"path": {"jd"}})
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "holds 3 entries") || site.read(t, "jd/deep/b.js") == "" {
		t.Errorf("a delete of a folder with files, not confirmed whole: %d; want 409 script_folder_not_empty, nothing deleted:\n%s", w.Code, w.Body)
	}
	if w := site.do(apitoken.Admin, "/scripts/delete", url.Values{"path": {"jd"}, "whole": {"1"}}); w.Code != http.StatusOK {
		t.Fatalf("the confirmed delete: %d:\n%s", w.Code, w.Body)
	}
	if _, err := os.Stat(filepath.Join(site.dir, "jd")); !os.IsNotExist(err) {
		t.Errorf("the folder is still there: %v", err)
	}
	if page := site.send(apitoken.Admin, "/scripts/delete?path=c.js", nil); page.Code != http.StatusOK || !strings.Contains(page.Body.String(), `id="scr-delete-confirm"`) || site.read(t, "c.js") == "" {
		t.Errorf("the confirm page of a file: %d:\n%s", page.Code, page.Body)
	}
}

// A script's page links to the New task form filled in to run it: the
// interpreter of its extension, started in the script's own folder, a
// task named after the file; a file of no known extension gets no link.
func TestTheNewTaskLinkOfAScriptPrefillsTheNewTaskForm(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for _, f := range []struct{ path, script, task, needs string }{
		{"sub/jd_bean_sign.js", "node jd_bean_sign.js", "jd_bean_sign", "node"},
		{"Daily Check.py", "python3 -u 'Daily Check.py'", "daily-check", "python3"},
		{"sub/clean.sh", "bash clean.sh", "clean", "bash"},
		{"app.ts", "tsx app.ts", "app", "npm install -g tsx"},
	} {
		site.write(t, f.path, "x\n")
		page := html.UnescapeString(site.send(apitoken.Admin, "/scripts/file?path="+url.QueryEscape(f.path), nil).Body.String())
		m := regexp.MustCompile(`id="scr-task"><a href="([^"]+)"[^>]*>New task from this script</a> <span class="help">([^<]*)</span>`).FindStringSubmatch(page)
		if m == nil || !strings.Contains(m[2], f.needs) {
			t.Errorf("%s: no New task link saying it needs %s:\n%s", f.path, f.needs, page)
			continue
		}
		form := html.UnescapeString(site.send(apitoken.Admin, m[1], nil).Body.String())
		workdir := filepath.Join(site.dir, filepath.Dir(filepath.FromSlash(f.path)))
		for _, want := range []string{`id="nt-task" name="task" value="` + f.task + `"`, `name="script" rows="8" required spellcheck="false" autocapitalize="off">` + f.script + `</textarea>`, `id="nt-workdir" name="workdir" value="` + workdir + `"`} {
			if !strings.Contains(form, want) {
				t.Errorf("%s: the New task form lacks %s:\n%s", f.path, want, form)
			}
		}
	}
	site.write(t, "notes.txt", "x\n")
	if page := site.send(apitoken.Admin, "/scripts/file?path=notes.txt", nil).Body.String(); strings.Contains(page, "/definitions/new") || !strings.Contains(page, `id="scr-notask"`) {
		t.Errorf("a .txt file is offered a task:\n%s", page)
	}
}

// The page is in Chinese for a Chinese reader: the nav, the listing and
// the forms, with no English word of the page's own left.
func TestTheScriptsPageIsInChinese(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	site.write(t, "jd_bean.js", "x\n")
	body := site.send(apitoken.Admin, "/scripts?lang=zh", nil).Body.String()
	for _, want := range []string{`id="nav-scripts">脚本</a>`, "本服务器的脚本文件夹", "新建文件夹", "替换同名文件", "修改时间", "上传"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Chinese page lacks %q", want)
		}
	}
	for _, en := range []string{"New folder", "Upload", "Modified", "Replace files"} {
		if strings.Contains(body, en) {
			t.Errorf("the Chinese page says %q", en)
		}
	}
	file := site.send(apitoken.Admin, "/scripts/file?path=jd_bean.js&lang=zh", nil).Body.String()
	if !strings.Contains(file, "用此脚本新建任务") || !strings.Contains(file, "主机上需要安装 node") {
		t.Errorf("the Chinese file page lacks its task link:\n%s", file)
	}
}

// Where the commands run on other hosts (a cluster replica), the nav has
// no Scripts and the page says where scripts live instead; its forms
// change nothing.
func TestAServerWithoutAScriptsFolderSaysScriptsLiveOnTheWorkersHosts(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	if w := site.send(apitoken.Admin, "/runs", nil); strings.Contains(w.Body.String(), `id="nav-scripts"`) {
		t.Error("the nav offers Scripts on a server without a folder")
	}
	for _, s := range []struct {
		path string
		form url.Values
	}{{"/scripts", nil}, {"/scripts/file?path=a.js", nil}, {"/scripts/new", url.Values{"dir": {""}, "name": {"a.js"}, "text": {"x"}}},
		{"/scripts/tasks?path=", nil}, {"/scripts/tasks/preview", url.Values{"path": {""}, "project": {"jd"}, "timezone": {"UTC"}}}} {
		w := site.send(apitoken.Admin, s.path, s.form)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "scripts live on the workers&#39; hosts") || strings.Contains(w.Body.String(), `id="scr-tasks`) {
			t.Errorf("%s: %d; want the page saying where scripts live:\n%s", s.path, w.Code, w.Body)
		}
	}
}

// A script whose name starts with '-' (a pulled repository's -x.js) is
// prefilled as ./-x.js, so that node runs it rather than read it as an
// option; other names stay as they are.
func TestAScriptNamedLikeAnOptionIsPrefilledAsAFile(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for name, want := range map[string]string{"-x.js": "node ./-x.js", "--inspect=0.js": "node ./--inspect=0.js", "a-x.js": "node a-x.js"} {
		site.write(t, name, "x\n")
		page := html.UnescapeString(site.send(apitoken.Admin, "/scripts/file?path="+url.QueryEscape(name), nil).Body.String())
		m := regexp.MustCompile(`id="scr-task"><a href="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Errorf("%s: no New task link:\n%s", name, page)
			continue
		}
		link, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if got := link.Query().Get("script"); got != want {
			t.Errorf("%s: the form is prefilled with %q; want %q", name, got, want)
		}
	}
}
