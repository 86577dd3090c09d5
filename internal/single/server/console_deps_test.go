package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// fakeInstallers puts first in PATH an npm and a pip3 that each append
// the arguments they were given, one a line, to a file of their name in
// the returned folder, and print what an installer prints; pip3 fails
// (exit 1) for a package named broken. They are real programs the
// executor starts, so an install goes the way a real one does, without a
// network.
func fakeInstallers(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"npm", "pip3"} {
		script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + filepath.Join(dir, name) + "\necho " + name + ": done\n" +
			"for a in \"$@\"; do [ \"$a\" = broken ] && { echo 'ERROR: no matching distribution for broken' >&2; exit 1; }; done\nexit 0\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// calls is what the fake installer name was called with, one argument a
// line, each call after the one before.
func calls(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var flashRun = regexp.MustCompile(`Run ([0-9a-f-]+)\.`)

// depsForm sends a form of the Dependencies page and returns the Run its
// answer names, with the page.
func (s *consoleSite) depsForm(t *testing.T, c *http.Client, csrf, action string, form url.Values) (int, string, string) {
	t.Helper()
	form.Set("csrf", csrf)
	resp, page := httpcall.Form(t, c, http.MethodPost, s.base+"/dependencies/"+action+"?lang=en", form)
	m := flashRun.FindStringSubmatch(page)
	if m == nil {
		return resp.StatusCode, "", page
	}
	return resp.StatusCode, m[1], page
}

// finished waits, bounded, until the Run id has finished, and returns its
// state.
func (s *consoleSite) finished(t *testing.T, id string) string {
	t.Helper()
	var state string
	waitFor(t, "Run "+id+" to finish", time.Minute, func() bool {
		d := s.runDetail(t, id)
		state = string(d.Run.State)
		return d.Run.FinishedAtMs != nil
	})
	return state
}

// Several packages added at once are installed in one Run of the
// dependencies project's node task: npm is given them, as typed, after
// --prefix and the scripts folder (whose node_modules `node x.js` finds),
// and the page lists each as installed with a link to that Run. The
// audit trail records each added and installed, by name.
func TestAddedPackagesAreInstalledInOneRunWhoseStateThePageShows(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	status, id, page := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {"axios @scope/x@1.2"}})
	if status != http.StatusOK || id == "" {
		t.Fatalf("add: %d, no Run named:\n%.3000s", status, page)
	}
	if state := site.finished(t, id); state != "succeeded" {
		t.Fatalf("the install Run ended %s", state)
	}
	scripts := filepath.Join(site.dir, "scripts")
	if got, want := calls(t, fake, "npm"), strings.Join([]string{"install", "--prefix", scripts, "--no-audit", "--no-fund", "axios", "@scope/x@1.2"}, "\n")+"\n"; got != want {
		t.Errorf("npm was called with\n%s\nwant\n%s", got, want)
	}
	d := site.runDetail(t, id)
	if d.Run.ProjectName != deps.ProjectName {
		t.Errorf("the install Run is of project %q, want %q", d.Run.ProjectName, deps.ProjectName)
	}
	for _, lang := range []string{"en", "zh"} {
		_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang="+lang, nil)
		installed := map[string]string{"en": "installed", "zh": "已安装"}[lang]
		for _, name := range []string{"axios", "@scope/x"} {
			_, row, _ := strings.Cut(page, `<tr id="dep-node-`+name+`">`)
			row, _, _ = strings.Cut(row, "</tr>")
			if !strings.Contains(row, `dep-state-installed">`+installed+`<`) || !strings.Contains(row, `href="/runs/`+id+`"`) {
				t.Errorf("the page in %s does not list %s installed by Run %s:\n%s", lang, name, id, row)
			}
		}
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/audit?lang=zh", nil); !strings.Contains(page, "安装依赖") || !strings.Contains(page, "node/@scope/x") {
		t.Errorf("the audit page in Chinese does not name the install:\n%.3000s", page)
	}
	trail := site.auditActions(t)
	for _, want := range []string{"dependency.added node/axios", "dependency.added node/@scope/x", "dependency.installed node/axios", "dependency.installed node/@scope/x"} {
		if !strings.Contains(trail, want+"\n") {
			t.Errorf("the audit trail has no %s:\n%s", want, trail)
		}
	}
}

// auditActions is the audit trail's action and object of each record,
// one a line.
func (s *consoleSite) auditActions(t *testing.T) string {
	t.Helper()
	page, err := s.srv.store.AuditList(t.Context(), audit.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range page.Records {
		b.WriteString(string(r.Action) + " " + r.ObjectName + "\n")
	}
	return b.String()
}

// An install whose installer fails shows the package failed, with the Run
// whose log says why; Install all installs every declared package of the
// kind again, in one Run.
func TestAFailedInstallShowsFailedAndInstallAllRunsEveryPackageAgain(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, id, page := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"python"}, "names": {"requests==2.31.0\nbroken"}})
	if id == "" {
		t.Fatalf("add named no Run:\n%.3000s", page)
	}
	if state := site.finished(t, id); state != "failed" {
		t.Fatalf("the install of broken ended %s, want failed", state)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang=en", nil)
	_, row, _ := strings.Cut(page, `<tr id="dep-python-broken">`)
	if row, _, _ = strings.Cut(row, "</tr>"); !strings.Contains(row, `dep-state-failed">failed<`) {
		t.Errorf("the page does not show broken failed:\n%s", row)
	}
	if _, log := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id+"/download", nil); !strings.Contains(log, "no matching distribution for broken") {
		t.Errorf("the Run's log does not say why: %q", log)
	}
	_, again, _ := site.depsForm(t, c, csrf, "install", url.Values{"kind": {"python"}, "all": {"1"}})
	if again == "" || again == id {
		t.Fatalf("install all named no new Run")
	}
	site.finished(t, again)
	// Install all gives them in the list's order, by name.
	want := "install\n--user\nrequests==2.31.0\nbroken\n" + "install\n--user\nbroken\nrequests==2.31.0\n"
	if got := calls(t, fake, "pip3"); got != want {
		t.Errorf("pip3 was called with\n%s\nwant\n%s", got, want)
	}
}

// Remove uninstalls the package by its name, without its version, in a
// Run, and forgets it: the page no longer lists it and the trail records
// dependency.removed.
func TestRemovingAPackageUninstallsItByNameAndForgetsIt(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, id, _ := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {"dayjs@1.11.10"}})
	site.finished(t, id)
	status, gone, page := site.depsForm(t, c, csrf, "remove", url.Values{"kind": {"node"}, "name": {"dayjs"}})
	if gone == "" {
		t.Fatalf("remove: %d, no Run named:\n%.3000s", status, page)
	}
	site.finished(t, gone)
	if got := calls(t, fake, "npm"); !strings.HasSuffix(got, "uninstall\n--prefix\n"+filepath.Join(site.dir, "scripts")+"\ndayjs\n") {
		t.Errorf("npm was called with\n%s\nwant an uninstall of dayjs last", got)
	}
	if _, page = httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang=en", nil); strings.Contains(page, `id="dep-node-dayjs"`) {
		t.Errorf("the page still lists dayjs")
	}
	if trail := site.auditActions(t); !strings.Contains(trail, "dependency.removed node/dayjs\n") {
		t.Errorf("the audit trail has no dependency.removed:\n%s", trail)
	}
	status, _, page = site.depsForm(t, c, csrf, "remove", url.Values{"kind": {"node"}, "name": {"dayjs"}})
	if status != http.StatusNotFound || !strings.Contains(page, "is not declared here") {
		t.Errorf("removing dayjs again: %d, want 404 dependency_missing:\n%.2000s", status, page)
	}
}

// A package name that is not one — a shell line, an option, a path — is
// refused on the form, saying what a name looks like, and nothing runs.
func TestANameThatIsNoPackageIsRefusedAndNothingRuns(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, names := range []string{"axios;touch /tmp/x", "--global axios", "../x", "$(id)"} {
		status, id, page := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {names}})
		if status != http.StatusBadRequest || id != "" || !strings.Contains(page, "write one package per word") {
			t.Errorf("adding %q: %d, Run %q; want 400 dependency_name_invalid:\n%.2000s", names, status, id, page)
		}
	}
	if got := calls(t, fake, "npm"); got != "" {
		t.Errorf("npm ran for refused names: %q", got)
	}
	if trail := site.auditActions(t); strings.Contains(trail, "dependency.") {
		t.Errorf("a refused add was recorded:\n%s", trail)
	}
}

// On a server whose PATH holds no npm, the page says so, naming what to
// install, and an add is refused with the same words before anything is
// declared.
func TestAMissingInstallerIsNamedAndAnAddRefused(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang=zh", nil)
	if !strings.Contains(page, `id="dep-missing-node"`) || !strings.Contains(page, "请先在本机安装 Node.js 和 npm") {
		t.Errorf("the page does not say npm is missing:\n%.3000s", page)
	}
	status, _, page := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {"axios"}})
	if status != http.StatusConflict || !strings.Contains(page, "not on this server&#39;s PATH") {
		t.Errorf("an add without npm: %d:\n%.3000s", status, page)
	}
	if trail := site.auditActions(t); strings.Contains(trail, "dependency.") {
		t.Errorf("a refused add was recorded:\n%s", trail)
	}
}

// The installers' triggers stay paused through every install, each of
// which publishes the task again: the clock never runs an install (or a
// removal) again on its own; only the page asks for one.
func TestTheInstallersTriggerStaysPausedThroughEveryInstall(t *testing.T) {
	fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, names := range []string{"axios", "dayjs"} {
		_, id, page := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {names}})
		if id == "" {
			t.Fatalf("add %s named no Run:\n%.2000s", names, page)
		}
		site.finished(t, id)
	}
	status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/triggers", site.tokens[apitoken.Read], nil)
	var list view.TriggerList
	if status != http.StatusOK || json.Unmarshal(body, &list) != nil {
		t.Fatalf("GET the triggers: %d %s", status, body)
	}
	n := 0
	for _, tr := range list.Triggers {
		if tr.ProjectName != deps.ProjectName {
			continue
		}
		n++
		if tr.Name != "node" || !tr.Paused {
			t.Errorf("the installer's trigger after two installs: %+v; want node, paused", tr)
		}
	}
	if n != 1 {
		t.Errorf("the dependencies project has %d triggers, want the one of node", n)
	}
}

// While the server holds its writes for a clock behind the database, an
// add is refused in the page's language before anything is declared or
// run, as every audited change is.
func TestADependencyChangeIsRefusedWhileTheClockHoldsWrites(t *testing.T) {
	fake := fakeInstallers(t)
	site := startClockSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	site.setBack(t)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/dependencies/add?lang=zh", url.Values{"csrf": {csrf}, "kind": {"node"}, "names": {"axios"}})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "此服务器现在不接受写入") {
		t.Errorf("an add while the clock holds writes: %d; want 503 clock_behind_database in Chinese:\n%.2000s", resp.StatusCode, page)
	}
	if got := calls(t, fake, "npm"); got != "" {
		t.Errorf("npm ran while writes were held: %q", got)
	}
}

// The API adds as the page does and lists what it added with its Run's
// state; a name that is no package is 400 dependency_name_invalid, and a
// token bound to a project is refused every route, which are every
// project's.
func TestTheDependenciesAPIAddsAndListsAsThePageDoesForAnAdminOfEveryProject(t *testing.T) {
	fake := fakeInstallers(t)
	site := startConsoleSite(t)
	admin := site.tokens[apitoken.Admin]
	status, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/dependencies", admin, []byte(`{"kind": "node", "packages": ["axios", "@scope/x@1.2"]}`))
	var done struct {
		RunID string `json:"runId"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &done) != nil || done.RunID == "" {
		t.Fatalf("POST /api/v1/dependencies: %d %s", status, body)
	}
	site.finished(t, done.RunID)
	if got := calls(t, fake, "npm"); !strings.HasSuffix(got, "axios\n@scope/x@1.2\n") {
		t.Errorf("npm was called with\n%s", got)
	}
	status, body, _ = httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/dependencies", admin, nil)
	var list struct {
		Dependencies []deps.Listed `json:"dependencies"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Dependencies) != 2 {
		t.Fatalf("GET /api/v1/dependencies: %d %s", status, body)
	}
	for _, d := range list.Dependencies {
		if d.State != deps.StateInstalled || d.RunID != done.RunID {
			t.Errorf("listed %+v; want installed by Run %s", d, done.RunID)
		}
	}
	status, body, _ = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/dependencies", admin, []byte(`{"kind": "python", "packages": ["x; rm -rf /"]}`))
	if status != http.StatusBadRequest || !strings.Contains(string(body), string(deps.RefusalNameInvalid)) {
		t.Errorf("POST of a shell line: %d %s; want 400 %s", status, body, deps.RefusalNameInvalid)
	}
	bound, _, err := apitoken.Create(t.Context(), site.srv.store, "tester", ids.New(), "shop-admin", apitoken.Admin, 0, "shop")
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct{ method, path, body string }{{http.MethodGet, "/api/v1/dependencies", ""}, {http.MethodPost, "/api/v1/dependencies/remove", `{"kind": "node", "name": "axios"}`}} {
		if status, body, _ := httpcall.Bearer(t, call.method, site.base+call.path, bound, []byte(call.body)); status != http.StatusForbidden || !strings.Contains(string(body), string(apitoken.RefusalProjectNotInScope)) {
			t.Errorf("%s %s with a token bound to shop: %d %s; want 403 %s", call.method, call.path, status, body, apitoken.RefusalProjectNotInScope)
		}
	}
}

// A project named dependencies that someone made for their own tasks is
// never published over: one letting several Runs run at once, or holding
// a task of an installer's name without the page's label, refuses the
// change saying why, and neither its task nor an installer changes.
func TestAProjectOfTheInstallersNameThePageDidNotMakeIsRefusedNotPublishedOver(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	for _, c2 := range []struct{ file, why string }{
		{"project: dependencies\nmaxRunning: 1\ntasks:\n  - name: node\n    script: \"echo mine\"\ntriggers:\n  - name: node\n    task: node\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n",
			"is not the page&#39;s installer"},
		{"project: dependencies\nmaxRunning: 4\ntasks:\n  - name: node\n    script: \"echo mine\"\n    labels: {dependencies/kind: node}\ntriggers:\n  - name: node\n    task: node\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n",
			"lets 4 Runs run at once"},
	} {
		site.applyOverAPI(t, []byte(c2.file), deps.ProjectName)
		status, id, page := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {"axios"}})
		if status != http.StatusConflict || id != "" || !strings.Contains(page, c2.why) {
			t.Errorf("an add beside a project of the name not the page's (%s): %d, Run %q:\n%.3000s", c2.why, status, id, page)
		}
	}
	if got := calls(t, fake, "npm"); got != "" {
		t.Errorf("npm ran beside a project not the page's: %q", got)
	}
	st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/projects/"+deps.ProjectName+"/definitions", site.tokens[apitoken.Admin], nil)
	if st != http.StatusOK || !strings.Contains(string(body), "echo mine") {
		t.Errorf("the project's own task changed: %d %s", st, body)
	}
}
