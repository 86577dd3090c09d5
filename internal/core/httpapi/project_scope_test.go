package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// projectWithRun publishes project name with one trigger, and admits a
// Run of it; it returns the trigger's and the Run's ids.
func projectWithRun(t *testing.T, st *sqlitestore.Store, name string) (triggerID, runID string) {
	t.Helper()
	triggerID, runID, _ = projectWithIDs(t, st, name)
	return triggerID, runID
}

// projectWithIDs is projectWithRun, with the project's id too.
func projectWithIDs(t *testing.T, st *sqlitestore.Store, name string) (triggerID, runID, projectID string) {
	t.Helper()
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := st.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	tk, _, err := svc.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeArgv, Path: "/usr/bin/env", Args: []string{"true"}, TimeoutMs: 60_000}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "yearly", Enabled: true,
		Cron: trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "test"})
	if err != nil || res.RunID == "" {
		t.Fatalf("run now in %s: %+v %v", name, res, err)
	}
	return tg.TriggerID, res.RunID, p.ID
}

// Every route of the table, asked by an admin token bound to project
// alpha about project charlie (its name, a listing's filter of its id, a
// file of it), or a route that is no one project's, is refused 403
// project_not_in_scope naming the token; charlie's trigger or Run by its
// id is answered as an id no object has; its listings hold alpha's rows
// and none of charlie's. A token of every project is never so refused.
func TestAProjectBoundTokenActsOnItsProjectsOnlyOnEveryRoute(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	charlieTrigger, charlieRun, charlieProject := projectWithIDs(t, st, "charlie")
	projectWithRun(t, st, "alpha")
	// A pause and a resume of each project leave audit records of both.
	for _, p := range []string{"alpha", "charlie"} {
		for _, pause := range []bool{true, false} {
			if _, err := st.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: p, Pause: pause, Actor: "test"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	bound, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "alpha-ci", apitoken.Admin, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	every, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "ops", apitoken.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Pauser: st, ProjectPauser: st, ProjectPauses: st, Notifications: st, Audit: st,
		Manual: st, Export: st, Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler), Limits: Limits{PerToken: 1000, Burst: 1000}})
	ask := func(method, target, token, body string) (int, string) {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+token)
		if method == http.MethodPost && body != "" {
			req.Header.Set("Content-Type", "application/yaml")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		raw, _ := io.ReadAll(rec.Body)
		return rec.Code, string(raw)
	}
	const charlieFile = "project: charlie\ntasks:\n  - name: job\n    script: \"true\"\n"
	for _, rt := range routes {
		target := strings.NewReplacer("{project}", "charlie", "{name}", "charlie").Replace(rt.pattern)
		body := ""
		switch rt.projects {
		case noProject:
			continue
		case runProject:
			target = strings.ReplaceAll(target, "{id}", charlieRun)
		case triggerProject:
			target = strings.ReplaceAll(target, "{id}", charlieTrigger)
		case fileProject:
			body = charlieFile
		case everyProject, notificationProject:
			target = strings.ReplaceAll(target, "{id}", someID)
		case secretProject:
			target = strings.Replace(target, "charlie", "charlie%2Fnew", 1)
		case pathProject, listed:
		default:
			t.Fatalf("%s %s: project rule %d is not one this walk knows", rt.method, rt.pattern, rt.projects)
		}
		status, got := ask(rt.method, target, bound, body)
		switch rt.projects {
		case listed:
			if status != 200 || strings.Contains(got, "charlie") || (rt.pattern != "/api/v1/notifications" && !strings.Contains(got, "alpha")) {
				t.Errorf("%s %s by a token bound to alpha: %d %s; want alpha's rows and none of charlie's", rt.method, target, status, got)
			}
			if rt.pattern == "/api/v1/projects" {
				break
			}
			filtered := target + "?project=" + charlieProject
			if status, got := ask(rt.method, filtered, bound, body); status != 403 || !strings.Contains(got, `"reason":"project_not_in_scope"`) || strings.Contains(got, "charlie") {
				t.Errorf("%s %s by a token bound to alpha: %d %s; want 403 project_not_in_scope not naming charlie", rt.method, filtered, status, got)
			}
		case runProject, triggerProject:
			missing := ids.New()
			wantStatus, want := ask(rt.method, strings.Replace(target, charlieRun, missing, 1), bound, body)
			if rt.projects == triggerProject {
				wantStatus, want = ask(rt.method, strings.Replace(target, charlieTrigger, missing, 1), bound, body)
			}
			got = strings.NewReplacer(charlieRun, missing, charlieTrigger, missing).Replace(got)
			if status != 404 || status != wantStatus || got != want {
				t.Errorf("%s %s by a token bound to alpha: %d %s; want what an id no object has gets: %d %s", rt.method, target, status, got, wantStatus, want)
			}
		default:
			if status != 403 || !strings.Contains(got, `"reason":"project_not_in_scope"`) || !strings.Contains(got, `token \"alpha-ci\" is bound to the project alpha `) {
				t.Errorf("%s %s by a token bound to alpha: %d %s; want 403 project_not_in_scope naming the token and its project", rt.method, target, status, got)
			}
		}
		if _, got := ask(rt.method, target, every, body); strings.Contains(got, "project_not_in_scope") {
			t.Errorf("%s %s by a token of every project: %s; want no project refusal", rt.method, target, got)
		}
	}
}

// Pause and resume take a project's id as well as its name: a token bound
// to alpha pauses alpha by its id and is refused charlie's, the refusal
// naming the id it was given, never charlie.
func TestAProjectBoundTokenPausesItsProjectByIDButNotAnothers(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	_, _, charlie := projectWithIDs(t, st, "charlie")
	_, _, alpha := projectWithIDs(t, st, "alpha")
	bound, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "alpha-ci", apitoken.Operate, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, ProjectPauser: st, ProjectPauses: st, Export: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	if p := send(t, h, "POST", "/api/v1/projects/"+alpha+"/pause", "localhost", bound, "{}"); p.status != 200 {
		t.Errorf("pausing alpha by its id with alpha's token: %d %s %q; want it paused", p.status, p.reason, p.message)
	}
	if p := send(t, h, "POST", "/api/v1/projects/"+charlie+"/pause", "localhost", bound, "{}"); p.status != 403 || p.reason != "project_not_in_scope" || strings.Contains(p.message, "charlie") {
		t.Errorf("pausing charlie by its id with alpha's token: %d %s %q; want 403 project_not_in_scope not naming charlie", p.status, p.reason, p.message)
	}
}
