package server

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A mirror set on the page (npm) or over the API (pip) reaches the
// installers of the next installs as words of their own: npm --registry
// URL, pip -i URL --trusted-host HOST. The page and the API show them,
// the trail records each, and a URL with a password is refused without
// showing it, the mirror set before kept.
func TestAMirrorSetOnThePageOrTheAPIIsGivenToTheInstallersAsArguments(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/dependencies/mirror?lang=en", url.Values{"csrf": {csrf}, "kind": {"node"},
		"registry": {"https://registry.npmmirror.com"}, "proxy": {"http://127.0.0.1:7890"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "the next install fetches from registry https://registry.npmmirror.com") {
		t.Fatalf("the node mirror form: %d\n%.3000s", resp.StatusCode, page)
	}
	status, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/dependencies/mirrors", site.tokens[apitoken.Admin],
		[]byte(`{"kind": "python", "registry": "https://pypi.tuna.tsinghua.edu.cn/simple"}`))
	var kept deps.Mirror
	if status != http.StatusOK || json.Unmarshal(body, &kept) != nil || kept.TrustedHost != "pypi.tuna.tsinghua.edu.cn" {
		t.Fatalf("POST the python mirror: %d %s", status, body)
	}
	_, node, _ := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {"axios"}})
	_, python, _ := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"python"}, "names": {"requests"}})
	if node == "" || python == "" {
		t.Fatalf("the adds named no Run: %q %q", node, python)
	}
	site.finished(t, node)
	site.finished(t, python)
	scripts := filepath.Join(site.dir, "scripts")
	if got, want := calls(t, fake, "npm"), strings.Join([]string{"install", "--prefix", scripts, "--no-audit", "--no-fund", "--registry", "https://registry.npmmirror.com", "--loglevel", "http", "axios"}, "\n")+"\n"; got != want {
		t.Errorf("npm was called with\n%s\nwant\n%s", got, want)
	}
	if got, want := calls(t, fake, "pip3"), "install\n--user\n-i\nhttps://pypi.tuna.tsinghua.edu.cn/simple\n--trusted-host\npypi.tuna.tsinghua.edu.cn\nrequests\n"; got != want {
		t.Errorf("pip3 was called with\n%s\nwant\n%s", got, want)
	}
	status, body, _ = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/dependencies/mirrors", site.tokens[apitoken.Admin],
		[]byte(`{"kind": "node", "registry": "https://registry.npmmirror.com", "proxy": "http://bob:hunter2@proxy.example:3128"}`))
	if status != http.StatusBadRequest || !strings.Contains(string(body), string(deps.RefusalMirrorURL)) || strings.Contains(string(body), "hunter2") {
		t.Errorf("a proxy with a password: %d %s; want 400 %s without the password", status, body, deps.RefusalMirrorURL)
	}
	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/dependencies/mirror?lang=zh", url.Values{"csrf": {csrf}, "kind": {"python"}, "registry": {"https://tok:hunter2@pypi.example/simple"}})
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(page, "hunter2") || !strings.Contains(html.UnescapeString(page), "含有用户名或密码") {
		t.Errorf("the form with a password: %d; want 400 in Chinese without the password:\n%.3000s", resp.StatusCode, page)
	}
	resp, page = httpcall.Form(t, c, http.MethodPost, site.base+"/dependencies/mirror?lang=en", url.Values{"csrf": {csrf}, "kind": {"linux"}, "registry": {"https://mirrors.aliyun.com/alpine"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="dep-error"`) || !strings.Contains(page, "take no mirror here") {
		t.Errorf("a linux mirror: %d; want 400 said at the top of the page:\n%.3000s", resp.StatusCode, page)
	}
	status, body, _ = httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/dependencies/mirrors", site.tokens[apitoken.Admin], nil)
	var list struct {
		Mirrors []deps.Mirror `json:"mirrors"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Mirrors) != 2 || list.Mirrors[0].Proxy != "http://127.0.0.1:7890" || list.Mirrors[1].Registry != "https://pypi.tuna.tsinghua.edu.cn/simple" {
		t.Errorf("GET the mirrors after refusals: %d %s; want both kept as set", status, body)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang=en", nil); !strings.Contains(page, `id="dep-registry-node" name="registry" value="https://registry.npmmirror.com"`) ||
		!strings.Contains(page, "--trusted-host pypi.tuna.tsinghua.edu.cn") {
		t.Errorf("the page does not show the mirrors set:\n%.4000s", page)
	}
	trail := site.auditActions(t)
	if strings.Count(trail, "dependency.mirror_set ") != 2 || !strings.Contains(trail, "dependency.mirror_set node/mirror\n") {
		t.Errorf("the trail does not record both settings:\n%s", trail)
	}
	bound, _, err := apitoken.Create(t.Context(), site.srv.store, "tester", ids.New(), "shop-admin", apitoken.Admin, 0, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/dependencies/mirrors", bound, nil); status != http.StatusForbidden {
		t.Errorf("GET the mirrors with a token bound to a project: %d %s; want 403", status, body)
	}
}

// Remove on the list only asks: the row links to a question naming the
// package, whose form removes it, and nothing runs until it is sent.
func TestRemoveAsksToConfirmBeforeAnythingRuns(t *testing.T) {
	fake := fakeInstallers(t)
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	_, id, _ := site.depsForm(t, c, csrf, "add", url.Values{"kind": {"node"}, "names": {"dayjs@1.11.10"}})
	site.finished(t, id)
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang=en", nil)
	_, row, _ := strings.Cut(page, `<tr id="dep-node-dayjs">`)
	row, _, _ = strings.Cut(row, "</tr>")
	if strings.Contains(row, `action="/dependencies/remove"`) || !strings.Contains(row, `href="/dependencies?kind=node&amp;remove=dayjs#dep-confirm"`) {
		t.Errorf("the row removes at once, or does not link to the question:\n%s", row)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?kind=node&remove=dayjs&lang=zh", nil)
	_, ask, _ := strings.Cut(page, `id="dep-confirm"`)
	ask, _, _ = strings.Cut(ask, "</section>")
	if !strings.Contains(ask, "删除 dayjs@1.11.10？") || !strings.Contains(ask, `action="/dependencies/remove"`) || !strings.Contains(ask, `name="name" value="dayjs"`) || !strings.Contains(ask, `href="/dependencies"`) {
		t.Errorf("the question does not name the package with its form and a way back:\n%s", ask)
	}
	if got := calls(t, fake, "npm"); strings.Contains(got, "uninstall") {
		t.Errorf("npm uninstalled before the question was answered:\n%s", got)
	}
}

// While the clock holds the server's writes, a mirror is refused on the
// page and over the API, and nothing is kept.
func TestAMirrorChangeIsRefusedWhileTheClockHoldsWrites(t *testing.T) {
	site := startClockSite(t)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	site.setBack(t)
	resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/dependencies/mirror?lang=zh", url.Values{"csrf": {csrf}, "kind": {"node"}, "registry": {"https://registry.npmmirror.com"}})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "此服务器现在不接受写入") {
		t.Errorf("a mirror while the clock holds writes: %d; want 503 in Chinese:\n%.2000s", resp.StatusCode, page)
	}
	if status, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/dependencies/mirrors", site.tokens[apitoken.Admin], []byte(`{"kind": "node", "registry": "https://registry.npmmirror.com"}`)); status != http.StatusServiceUnavailable {
		t.Errorf("POST a mirror while the clock holds writes: %d %s; want 503", status, body)
	}
	if trail := site.auditActions(t); strings.Contains(trail, "dependency.mirror_set") {
		t.Errorf("a held mirror change was recorded:\n%s", trail)
	}
}

// With --run-as, an npm add the account could not write into the scripts
// folder is refused before any Run (or anything declared), naming the
// folder and its chown, which the page says up front.
func TestAnNpmAddTheRunAsAccountCannotWriteIsRefusedBeforeAnyRun(t *testing.T) {
	if _, err := user.Lookup("nobody"); err != nil || os.Geteuid() != 0 {
		t.Skipf("switching to the account nobody needs root and the account (uid %d): %v", os.Geteuid(), err)
	}
	fake := fakeInstallers(t)
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, slowScript, func(cfg *Config) {
		cfg.RunAs = task.RunAs{User: "nobody"}
	})
	status, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/dependencies", site.tokens[apitoken.Admin], []byte(`{"kind": "node", "packages": ["axios"]}`))
	scripts := filepath.Join(site.dir, "scripts")
	if status != http.StatusConflict || !strings.Contains(string(body), string(deps.RefusalFolderUnwritable)) || !strings.Contains(string(body), "chown nobody "+scripts) {
		t.Errorf("an npm add as nobody into %s: %d %s; want 409 %s naming its chown", scripts, status, body, deps.RefusalFolderUnwritable)
	}
	if got := calls(t, fake, "npm"); got != "" {
		t.Errorf("npm ran: %q", got)
	}
	status, body, _ = httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/dependencies", site.tokens[apitoken.Admin], nil)
	if status != http.StatusOK || strings.Contains(string(body), "axios") {
		t.Errorf("the refused add declared axios: %d %s", status, body)
	}
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/dependencies?lang=zh", nil); !strings.Contains(page, `id="dep-missing-node"`) || !strings.Contains(page, "chown nobody "+scripts) {
		t.Errorf("the page does not say up front that nobody cannot write the scripts folder:\n%.3000s", page)
	}
}
