package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// publishScriptTask publishes, in projectID, a task running script with
// one trigger of the same name, and returns the trigger's id.
func publishScriptTask(t *testing.T, svc catalog.Service, projectID, name, script string) string {
	t.Helper()
	tk, _, err := svc.PublishTask(t.Context(), projectID, ids.New(), 0, ids.New(), task.Spec{Name: name, Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Minute.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(t.Context(), projectID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: name, Enabled: true,
		Cron: trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	return tg.TriggerID
}

// The Triggers search finds a trigger by its task's script, which no name
// of it holds, and the row says, in the page's language, that the search
// found it in the script; a row found by its name says nothing of where.
func TestATriggerSearchFindsATaskByItsScriptAndSaysSo(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	svc := catalog.Service{Store: site.st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	p, err := site.st.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	sign := publishScriptTask(t, svc, p.ID, "sign", "node /ql/scripts/jd_bean_sign.js")
	for l, want := range map[string]string{"en": "found in the script", "zh": "在脚本中找到"} {
		page := site.do(apitoken.Read, "/triggers?q=jd_bean_sign.js&lang="+l, nil).Body.String()
		row := listRow(page, sign)
		if !strings.Contains(row, `<small class="found-in" id="found-`+sign+`">`+want+`</small>`) {
			t.Errorf("%s: the search for jd_bean_sign.js does not show trigger sign saying %q:\n%s", l, want, page)
		}
		if listRow(page, site.triggers["a"]) != "" {
			t.Errorf("%s: the search for jd_bean_sign.js shows trigger a, whose task runs another script", l)
		}
	}
	if page := site.do(apitoken.Read, "/triggers?q=sign", nil).Body.String(); listRow(page, sign) == "" || strings.Contains(page, `class="found-in"`) {
		t.Errorf("the search for sign, its name, does not show the trigger, or says where it found it:\n%s", page)
	}
}

// TestABoundUserSearchNeverFindsAnotherProjectsScript: a console user
// bound to one project searching for a script both projects run sees
// their own project's trigger alone; an unbound user sees both.
func TestABoundUserSearchNeverFindsAnotherProjectsScript(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := sqlitetest.Open(t)
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	found := map[string]string{}
	for _, name := range []string{"own", "other"} {
		p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
		if _, err := st.ProjectSave(ctx, p); err != nil {
			t.Fatal(err)
		}
		found[name] = publishScriptTask(t, svc, p.ID, "sign", "node /ql/scripts/jd_bean_sign.js")
	}
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Users: st, Export: st})
	const hash = "$argon2id$placeholder"
	for _, u := range []struct {
		name     string
		projects []string
	}{{"ann", []string{"own"}}, {"bob", nil}} {
		id := ids.New()
		if _, err := st.UserCreate(ctx, account.NewUser{ID: id, Name: u.name, Role: account.Viewer, Hash: hash, Projects: u.projects}); err != nil {
			t.Fatal(err)
		}
		c.sessions.add(&session{id: u.name, csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: u.name, scope: account.Viewer.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	}
	search := func(user string) string {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, "/triggers?q=jd_bean_sign.js", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: user})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("GET /triggers?q=jd_bean_sign.js as %s: %d %s", user, w.Code, w.Body)
		}
		return w.Body.String()
	}
	if page := search("bob"); listRow(page, found["own"]) == "" || listRow(page, found["other"]) == "" {
		t.Fatalf("an unbound user's search does not find both projects' script:\n%s", page)
	}
	page := search("ann")
	if listRow(page, found["own"]) == "" {
		t.Errorf("a user bound to own does not find own's script:\n%s", page)
	}
	if listRow(page, found["other"]) != "" || strings.Contains(page, "other/sign") {
		t.Errorf("a user bound to own finds project other's script:\n%s", page)
	}
}
