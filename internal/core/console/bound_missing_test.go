package console

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// boundObjects are the ids of one project's trigger, Run and dead
// notification.
type boundObjects struct{ trigger, run, notification string }

// A console user bound to project alpha who asks for charlie's trigger,
// Run, Run's log (live or downloaded) or notification by its id — to see
// it or act on it, alone or among a selection — is answered as for an id
// no object has (404, the same page word for word, in either language),
// as the API answers a token bound to alpha, so the user cannot tell
// charlie's object from none; alpha's own it sees.
func TestABoundUserFindsAnotherProjectsObjectsMissingAsAnIDNoObjectHas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ql.db")
	st := sqlitetest.OpenAt(t, path, func() int64 { return time.Now().UnixMilli() })
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	of := map[string]boundObjects{}
	for _, name := range []string{"alpha", "charlie"} {
		p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
		if _, err := st.ProjectSave(ctx, p); err != nil {
			t.Fatal(err)
		}
		tk, _, err := svc.PublishTask(ctx, p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "report", Enabled: true,
			Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "true", TimeoutMs: time.Minute.Milliseconds()}})
		if err != nil {
			t.Fatal(err)
		}
		tg, _, err := svc.PublishTrigger(ctx, p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "nightly", Enabled: true,
			Cron: trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "test"})
		if err != nil || res.RunID == "" {
			t.Fatalf("run now: %+v %v", res, err)
		}
		o := boundObjects{trigger: tg.TriggerID, run: res.RunID, notification: ids.New()}
		if _, err := db.Exec(`INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
			next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES (?1, ?2, 'sha256:' || printf('%064d', 0), 'run:' || ?1, 'failed', '{}', '{}', 'dead', 1, 1, 1)`,
			o.notification, p.ID); err != nil {
			t.Fatal(err)
		}
		of[name] = o
	}
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Users: st, Pauser: st, Manual: st, Export: st,
		Notifications: st, NotificationProjects: st, Cancel: st.CancelRun})
	const hash = "$argon2id$placeholder"
	id := ids.New()
	if _, err := st.UserCreate(ctx, account.NewUser{ID: id, Name: "alpha-ops", Role: account.Operator, Hash: hash, Projects: []string{"alpha"}}); err != nil {
		t.Fatal(err)
	}
	c.sessions.add(&session{id: "alpha-ops", csrf: "k", userID: id, stamp: account.PasswordStamp(hash), name: "alpha-ops", scope: account.Operator.Scope(), expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	// The session's browser keeps the flash cookies the console sets: a
	// form's result rides to its page in one.
	flashes := map[string]string{}
	send := func(method, path string, form url.Values) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, nil)
		if form != nil {
			form.Set("csrf", "k")
			r = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "alpha-ops"})
		for k, v := range flashes {
			r.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		for _, ck := range w.Result().Cookies() {
			switch {
			case !strings.HasPrefix(ck.Name, flashCookie):
			case ck.MaxAge < 0:
				delete(flashes, ck.Name)
			default:
				flashes[ck.Name] = ck.Value
			}
		}
		return w
	}
	charlie, none := of["charlie"], boundObjects{trigger: ids.New(), run: ids.New(), notification: ids.New()}
	pages := []struct {
		method string
		path   func(o boundObjects) string
		form   url.Values
	}{
		{http.MethodGet, func(o boundObjects) string { return "/triggers/" + o.trigger }, nil},
		{http.MethodGet, func(o boundObjects) string { return "/triggers/" + o.trigger + "?lang=zh" }, nil},
		{http.MethodPost, func(o boundObjects) string { return "/triggers/" + o.trigger + "/pause" }, url.Values{}},
		{http.MethodPost, func(o boundObjects) string { return "/triggers/" + o.trigger + "/run" }, url.Values{"request": {"r1"}}},
		{http.MethodGet, func(o boundObjects) string { return "/runs/" + o.run }, nil},
		{http.MethodGet, func(o boundObjects) string { return "/runs/" + o.run + "?lang=zh" }, nil},
		{http.MethodGet, func(o boundObjects) string { return "/runs/" + o.run + "/log" }, nil},
		{http.MethodGet, func(o boundObjects) string { return "/runs/" + o.run + "/download" }, nil},
		{http.MethodPost, func(o boundObjects) string { return "/runs/" + o.run + "/cancel" }, url.Values{}},
		{http.MethodPost, func(o boundObjects) string { return "/notifications/" + o.notification + "/retry" }, url.Values{}},
		{http.MethodPost, func(o boundObjects) string { return "/notifications/" + o.notification + "/retry?lang=zh" }, url.Values{}},
	}
	unname := strings.NewReplacer(charlie.trigger, "ID", charlie.run, "ID", charlie.notification, "ID", none.trigger, "ID", none.run, "ID", none.notification, "ID")
	for _, p := range pages {
		copyForm := func() url.Values {
			if p.form == nil {
				return nil
			}
			f := url.Values{}
			for k, v := range p.form {
				f[k] = v
			}
			return f
		}
		got, want := send(p.method, p.path(charlie), copyForm()), send(p.method, p.path(none), copyForm())
		if got.Code != http.StatusNotFound || got.Code != want.Code || unname.Replace(got.Body.String()) != unname.Replace(want.Body.String()) {
			t.Errorf("%s %s of charlie's as a user bound to alpha: %d\n%s\nwant what an id no object has gets: %d\n%s", p.method, p.path(charlie), got.Code, got.Body, want.Code, want.Body)
		}
	}
	for _, p := range []string{"/triggers/" + of["alpha"].trigger, "/runs/" + of["alpha"].run} {
		if w := send(http.MethodGet, p, nil); w.Code != http.StatusOK {
			t.Errorf("GET %s of alpha's as a user bound to alpha: %d; want it shown", p, w.Code)
		}
	}
	var state string
	if err := db.QueryRow(`SELECT state FROM notification_outbox WHERE id = ?`, charlie.notification).Scan(&state); err != nil || state != "dead" {
		t.Errorf("charlie's notification after the refused retry: %q %v; want it dead still", state, err)
	}
	for _, sel := range []struct{ path, id string }{{"/triggers/batch", charlie.trigger}, {"/runs/cancel", charlie.run}} {
		form := url.Values{"id": {sel.id}, "do": {"pause"}}
		w := send(http.MethodPost, sel.path, form)
		if to := w.Header().Get("Location"); w.Code == http.StatusSeeOther {
			w = send(http.MethodGet, to, nil)
		}
		if body := w.Body.String(); !strings.Contains(body, "does not exist") || strings.Contains(body, "is bound to") {
			t.Errorf("a selection of charlie's %s at %s: %d; want it refused as missing, not as another project's:\n%s", sel.id, sel.path, w.Code, body)
		}
	}
}
