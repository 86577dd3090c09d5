package console

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// overviewBacklog is the overview's backlog count.
var overviewBacklog = regexp.MustCompile(`<dd id="backlog">(?:≥ )?(\d+)`)

// TestABoundUsersOverviewCountsItsProjectsBacklogOnly: with three due
// triggers of another project and one of its own, the overview of a user
// bound to its project counts a backlog of one, and an unbound user's the
// installation's four.
func TestABoundUsersOverviewCountsItsProjectsBacklogOnly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ql.db")
	st := sqlitetest.OpenAt(t, path, func() int64 { return time.Now().UnixMilli() })
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	for _, doc := range []string{clustertest.Triggers("other", 3, clustertest.QuietCron()), clustertest.Triggers("own", 1, clustertest.QuietCron())} {
		parsed, err := apply.Parse("doc.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := apply.Apply(ctx, svc, parsed, ids.New); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	// Every trigger's schedule row due a second ago, as one the scheduler
	// has not taken yet.
	if res, err := db.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ?1, due_offset_ms = 0`, time.Now().UnixMilli()-1000); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 4 {
		t.Fatalf("made %d schedule rows due; want 4", n)
	}
	c := New(Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Users: st, Export: st, Backlog: st.Backlog})
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
	backlog := func(user string) string {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: user})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		m := overviewBacklog.FindStringSubmatch(w.Body.String())
		if w.Code != http.StatusOK || m == nil {
			t.Fatalf("the overview as %s: %d, no backlog in %s", user, w.Code, w.Body)
		}
		return m[1]
	}
	if got := backlog("ann"); got != "1" {
		t.Errorf("the overview of a user bound to own counts a backlog of %s; want own's 1", got)
	}
	if got := backlog("bob"); got != "4" {
		t.Errorf("the overview of a user of every project counts a backlog of %s; want every project's 4", got)
	}
}
