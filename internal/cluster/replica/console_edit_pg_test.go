package replica

import (
	"html"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica runs as the runtime role, which may not publish: its trigger
// page, project page and Definitions page offer an admin no Edit task,
// Edit schedule or Edit environment form, and the forms' addresses, read
// or sent, answer in the page's language as New task's do, with where to
// apply instead, changing no task or trigger.
func TestAReplicaOffersNoEditFormsAndItsEditAddressesSayWhereToApply(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("web", 1, clustertest.QuietCron()))
	secret := env.Token(t, "owner", apitoken.Admin)
	r := startReplica(t, bin, env, "replica-edit")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	_, page := get("/triggers?project=web")
	link := regexp.MustCompile(`href="(/triggers/[0-9a-f-]{36})"`).FindStringSubmatch(page)
	if link == nil {
		t.Fatalf("the replica's triggers list lacks the trigger:\n%s", page)
	}
	_, trigger := get(link[1])
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(trigger)
	if csrf == nil || !strings.Contains(trigger, `id="runnow"`) {
		t.Fatalf("the replica's trigger page lacks its forms:\n%s", trigger)
	}
	_, defs := get("/definitions?project=web")
	if !strings.Contains(defs, "name: job") {
		t.Fatalf("the replica's Definitions page does not show the project:\n%s", defs)
	}
	offered := []string{`id="edit-task"`, `id="edit-schedule"`, `id="def-edittasks"`, `href="/definitions/task`, `href="/definitions/schedule`, `href="/definitions/env`}
	for name, p := range map[string]string{"trigger page": trigger, "Definitions page": defs, "project page": page} {
		for _, o := range offered {
			if strings.Contains(p, o) {
				t.Errorf("the replica's %s offers %s", name, o)
			}
		}
	}

	revisions := func() int64 {
		return env.Int(t, `SELECT ((SELECT sum(current_revision) FROM qinglong.tasks) + (SELECT sum(current_revision) FROM qinglong.triggers)
			+ (SELECT count(*) FROM qinglong.task_revisions) + (SELECT count(*) FROM qinglong.trigger_revisions))::bigint`)
	}
	before := revisions()
	send := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		var resp *http.Response
		var err error
		if method == http.MethodPost {
			form.Set("csrf", csrf[1])
			resp, err = c.PostForm(base+path, form)
		} else {
			resp, err = c.Get(base + path + "&" + form.Encode())
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, html.UnescapeString(string(b))
	}
	says := map[string]string{
		"en": "this server cannot publish definitions: its database role may not (a cluster replica runs as the runtime role); run <code>ql apply -f FILE</code> with the admin role's URL, or with --api-url against a server that can",
		"zh": "此服务器不能发布定义：其数据库角色无此权限（集群副本以运行时角色运行）；请用管理员角色的 URL 执行 <code>ql apply -f FILE</code>，或对能发布定义的服务器使用 --api-url。",
	}
	task := url.Values{"project": {"web"}, "task": {"job"}, "revision": {"1"}, "script": {"echo edited"}, "timeout": {"5m"}}
	schedule := url.Values{"project": {"web"}, "trigger": {"t00000"}, "revision": {"1"}, "cron": {"*/5 * * * *"}, "timezone": {"Asia/Shanghai"}, "task": {"job"}}
	projectEnv := url.Values{"project": {"web"}, "shown": {"1"}, "env_sent": {"1"}, "env_name": {"A"}, "env_kind": {"value"}, "env_value": {"1"}, "env_secret": {""}}
	for l, want := range says {
		newCode, newPage := send(http.MethodGet, "/definitions/new?lang="+l, url.Values{"project": {"web"}})
		if newCode != http.StatusConflict || !strings.Contains(newPage, want) {
			t.Fatalf("New task on the replica (%s): %d, want 409 saying where to apply:\n%s", l, newCode, newPage)
		}
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			for path, form := range map[string]url.Values{"/definitions/task": task, "/definitions/schedule": schedule, "/definitions/env": projectEnv} {
				if code, page := send(method, path+"?lang="+l, maps.Clone(form)); code != newCode || !strings.Contains(page, want) {
					t.Errorf("%s %s on the replica (%s): %d, want %d saying where to apply as New task does:\n%s", method, path, l, code, newCode, page)
				}
			}
		}
	}
	if after := revisions(); after != before {
		t.Errorf("the edit addresses on the replica changed the catalog: revisions %d, then %d", before, after)
	}
}
