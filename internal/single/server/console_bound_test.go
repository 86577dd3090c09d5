package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// boundSite is a console site whose project shop has a Run of its trigger
// nightly, beside project alpha with a Run of its trigger hourly, and an
// operator alpha-ops bound to alpha, signed in; it returns the client,
// the session's CSRF token and the two Runs' ids.
func boundSite(t *testing.T) (site *consoleSite, c *http.Client, csrf, shopRun, alphaTrigger, alphaRun string) {
	t.Helper()
	site = startConsoleSite(t)
	st := site.srv.store
	p := project.Project{ID: ids.New(), Name: "alpha", Status: project.Active}
	if _, err := st.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	tk, _, err := svc.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "sync", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: slowScript, TimeoutMs: time.Hour.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "hourly", Enabled: true,
		Cron: trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	admit := func(triggerID string) string {
		res, err := st.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: ids.New(), Actor: "test"})
		if err != nil || res.RunID == "" {
			t.Fatalf("run now: %+v %v", res, err)
		}
		return res.RunID
	}
	shopRun, alphaRun = admit(site.triggerID), admit(tg.TriggerID)
	if _, err := account.Create(t.Context(), st, "tester", ids.New(), "alpha-ops", account.Operator, ownerPassword, "alpha"); err != nil {
		t.Fatal(err)
	}
	c = consoleClient(t)
	if status, loc, msg := site.signInUser(t, c, "alpha-ops", ownerPassword); status != http.StatusSeeOther {
		t.Fatalf("signing in as alpha-ops: %d to %q (%q)", status, loc, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the overview has no CSRF field:\n%s", page)
	}
	return site, c, m[1], shopRun, tg.TriggerID, alphaRun
}

// A console user bound to project alpha sees alpha's triggers, Runs and
// project choices and none of shop's; shop's trigger, Run and log, asked
// by their ids, are not found (404, as an id no object has) in the page's
// language, never naming shop; shop asked by name and the Workers page
// are refused 403 project_not_in_scope, naming the user and its projects.
func TestABoundConsoleUserSeesOnlyItsProjects(t *testing.T) {
	t.Parallel()
	site, c, _, shopRun, alphaTrigger, alphaRun := boundSite(t)
	for _, page := range []string{"/", "/triggers", "/runs", "/notifications"} {
		resp, body := httpcall.Form(t, c, http.MethodGet, site.base+page, nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, "shop") || strings.Contains(body, shopRun) || strings.Contains(body, site.triggerID) {
			t.Errorf("%s for a user bound to alpha: %d, names shop or its trigger or Run:\n%s", page, resp.StatusCode, body)
		}
	}
	for page, want := range map[string]string{"/triggers": alphaTrigger, "/runs": alphaRun} {
		if _, body := httpcall.Form(t, c, http.MethodGet, site.base+page, nil); !strings.Contains(body, want) {
			t.Errorf("%s for a user bound to alpha does not list alpha's %s", page, want)
		}
	}
	for _, page := range []string{"/runs/" + shopRun, "/runs/" + shopRun + "/log", "/runs/" + shopRun + "/download", "/triggers/" + site.triggerID} {
		resp, body := httpcall.Form(t, c, http.MethodGet, site.base+page, nil)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "does not exist") || strings.Contains(body, "shop") || strings.Contains(body, "is bound to") {
			t.Errorf("%s for a user bound to alpha: %d; want 404 saying it does not exist, naming neither shop nor the binding:\n%s", page, resp.StatusCode, body)
		}
	}
	for _, page := range []string{"/triggers?project=shop", "/workers"} {
		resp, body := httpcall.Form(t, c, http.MethodGet, site.base+page, nil)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `user &#34;alpha-ops&#34; is bound to the project alpha`) {
			t.Errorf("%s for a user bound to alpha: %d; want 403 naming the user and its projects:\n%s", page, resp.StatusCode, body)
		}
	}
	resp, body := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+shopRun+"?lang=zh", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "该运行不存在") {
		t.Errorf("shop's Run in Chinese for a user bound to alpha: %d; want the Chinese words of a Run that does not exist:\n%s", resp.StatusCode, body)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+alphaRun, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("alpha's Run for a user bound to alpha: %d; want it shown", resp.StatusCode)
	}
}

// A console user bound to project alpha cannot cancel shop's Run, alone
// or among a selection: to it the Run does not exist (404 alone, counted
// refused as missing on the Runs list a selection returns to), and shop's
// Run runs on; alpha's own Run it cancels.
func TestABoundConsoleUserCannotCancelAnotherProjectsRun(t *testing.T) {
	t.Parallel()
	site, c, csrf, shopRun, _, alphaRun := boundSite(t)
	resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+shopRun+"/cancel", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "run "+shopRun+" does not exist") {
		t.Fatalf("cancelling shop's Run as a user bound to alpha: %d; want 404, the Run missing:\n%s", resp.StatusCode, body)
	}
	if resp, body := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/cancel", url.Values{"csrf": {csrf}, "id": {shopRun}}); resp.StatusCode != http.StatusOK || !strings.Contains(body, "1 refused (run "+shopRun+" does not exist") {
		t.Fatalf("cancelling a selection of shop's Run: %d; want the Runs list saying it was refused:\n%s", resp.StatusCode, body)
	}
	d, err := site.srv.store.RunGet(t.Context(), shopRun)
	if err != nil || d.Run.State.Finished() || cancelAsked(d) {
		t.Fatalf("shop's Run after a bound user's cancels: %s %v; want it left running, no cancel asked", d.Run.State, err)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/runs/"+alphaRun+"/cancel", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("cancelling alpha's Run as a user bound to alpha: %d; want it cancelled", resp.StatusCode)
	}
	if d, err := site.srv.store.RunGet(t.Context(), alphaRun); err != nil || !(d.Run.State == run.Cancelled || cancelAsked(d)) {
		t.Fatalf("alpha's Run after its user's cancel: %s %v; want it cancelled", d.Run.State, err)
	}
}

// cancelAsked reports whether a cancel of d's Run was asked: its events
// name one.
func cancelAsked(d run.Detail) bool {
	for _, e := range d.Events {
		if strings.Contains(e.Name, "cancel") {
			return true
		}
	}
	return false
}
