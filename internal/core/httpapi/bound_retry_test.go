package httpapi

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A token bound to project alpha retries alpha's dead notification, and
// charlie's is answered as an id no row has (404 notification_missing, the
// same body), so the token cannot tell charlie's notification from none;
// charlie's stays dead.
func TestABoundTokenRetriesItsProjectsNotificationsAndFindsAnothersMissing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ql.db")
	st := sqlitetest.OpenAt(t, path, func() int64 { return time.Now().UnixMilli() })
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	dead := map[string]string{}
	for _, name := range []string{"alpha", "charlie"} {
		p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
		if _, err := st.ProjectSave(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		dead[name] = ids.New()
		if _, err := db.Exec(`INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
			next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES (?1, ?2, 'sha256:' || printf('%064d', 0), 'run:' || ?1, 'failed', '{}', '{}', 'dead', 1, 1, 1)`,
			dead[name], p.ID); err != nil {
			t.Fatal(err)
		}
	}
	tokens, _ := tokenStore(t)
	bound, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "alpha-ci", apitoken.Operate, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Notifications: st, NotificationProjects: st, Tokens: tokens,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	missing := ids.New()
	want := send(t, h, "POST", "/api/v1/notifications/"+missing+"/retry", "localhost", bound, "{}")
	p := send(t, h, "POST", "/api/v1/notifications/"+dead["charlie"]+"/retry", "localhost", bound, "{}")
	p.message = strings.ReplaceAll(p.message, dead["charlie"], missing)
	if p.status != 404 || p.reason != string(notify.RefusalNotificationMissing) || p.status != want.status || p.code != want.code || p.reason != want.reason || p.message != want.message {
		t.Errorf("retrying charlie's notification with alpha's token: %d %s %s %q; want what an id no row has gets: %d %s %s %q",
			p.status, p.code, p.reason, p.message, want.status, want.code, want.reason, want.message)
	}
	var state string
	if err := db.QueryRow(`SELECT state FROM notification_outbox WHERE id = ?`, dead["charlie"]).Scan(&state); err != nil || state != "dead" {
		t.Errorf("charlie's notification after the refused retry: %q %v; want it dead still", state, err)
	}
	if p := send(t, h, "POST", "/api/v1/notifications/"+dead["alpha"]+"/retry", "localhost", bound, "{}"); p.status != 200 {
		t.Errorf("retrying alpha's notification with alpha's token: %d %s %q; want it retried", p.status, p.reason, p.message)
	}
}

// heldRuns is a store whose Run look-up the database holds up: it waits
// for its context to end, and fails at once, saying so, given a context
// with no deadline, which would have held the request for ever.
type heldRuns struct{ run.Reader }

func (h heldRuns) RunGet(ctx context.Context, _ string) (run.Detail, error) {
	if _, ok := ctx.Deadline(); !ok {
		return run.Detail{}, errors.New("the look-up of a Run's project was given a context without the request's limit")
	}
	<-ctx.Done()
	return run.Detail{}, ctx.Err()
}

// The look-up of a Run's project that decides a bound token's scope runs
// within the request's limit: held up by the store, it ends with that
// limit, answered 504 timeout as a handler's read would be.
func TestABoundTokensScopeLookUpEndsWithTheRequestsLimit(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	tokens, _ := tokenStore(t)
	bound, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "alpha-ci", apitoken.Read, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: heldRuns{st}, Triggers: st, Detail: st, Tokens: tokens, RequestTimeout: 50 * time.Millisecond,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	if p := send(t, h, "GET", "/api/v1/runs/"+someID, "localhost", bound, ""); p.status != 504 || p.code != string(qlerror.Timeout) {
		t.Errorf("a bound token's Run whose project's look-up is held up: %d %s %q; want 504 timeout", p.status, p.code, p.message)
	}
}
