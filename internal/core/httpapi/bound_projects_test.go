package httpapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// boundProjectsFirst is how many other projects sort before a bound
// token's own: more than a project list holds.
const boundProjectsFirst = view.ProjectListLimit + 10

// TestABoundTokenListsItsProjectsWhateverHowManyOthersComeFirst: with more
// other projects than GET /api/v1/projects lists, all named to sort before
// a token's own two, the token bound to those two is listed both of them
// and nothing else, on both profiles' stores; a token of every project is
// still listed the first ProjectListLimit and told there are more.
func TestABoundTokenListsItsProjectsWhateverHowManyOthersComeFirst(t *testing.T) {
	t.Parallel()
	withManyProjects(t, boundProjectsListed)
}

// withManyProjects runs check, on each profile's store, with
// boundProjectsFirst projects named aaa-00001 on already there and a
// publish of definitions files.
func withManyProjects(t *testing.T, check func(t *testing.T, st catalog.DefinitionsReader, publish func(doc string))) {
	t.Run("standalone", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "ql.db")
		st := sqlitetest.OpenAt(t, path, func() int64 { return time.Now().UnixMilli() })
		svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if _, err := db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
			INSERT INTO projects (id, name, status, created_at_ms, updated_at_ms) SELECT printf('other-%05d', i), printf('aaa-%05d', i), 'active', 1, 1 FROM n`,
			boundProjectsFirst); err != nil {
			t.Fatal(err)
		}
		publish := func(doc string) {
			parsed, err := apply.Parse("doc.yaml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := apply.Apply(t.Context(), svc, parsed, ids.New); err != nil {
				t.Fatal(err)
			}
		}
		check(t, st, publish)
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		env := clustertest.New(t)
		rt := env.Runtime(t, "replica-bound-projects", 30*time.Second)
		env.Exec(t, `INSERT INTO qinglong.projects (id, name, status, created_at_ms, updated_at_ms)
			SELECT gen_random_uuid(), 'aaa-' || lpad(i::text, 5, '0'), 'active', 1, 1 FROM generate_series(1, $1::int) i`, boundProjectsFirst)
		check(t, rt, func(doc string) { env.Apply(t, doc) })
	})
}

// boundProjectsListed publishes the token's own projects, after the
// others by name, and lists the projects with a token bound to them and
// with one of every project.
func boundProjectsListed(t *testing.T, st catalog.DefinitionsReader, publish func(doc string)) {
	t.Helper()
	publish(clustertest.Triggers("own", 1, clustertest.QuietCron()))
	publish(clustertest.Triggers("zulu", 1, clustertest.QuietCron()))
	tokens, _ := tokenStore(t)
	bound, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "own-ci", apitoken.Read, 0, "own", "zulu")
	if err != nil {
		t.Fatal(err)
	}
	every, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "all-ci", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Export: st, Tokens: tokens, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	list := func(token string) view.ProjectList {
		t.Helper()
		req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/api/v1/projects", nil)
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var l view.ProjectList
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || rec.Code != 200 {
			t.Fatalf("GET /api/v1/projects: %d %s", rec.Code, rec.Body)
		}
		return l
	}
	l := list(bound)
	var names []string
	for _, p := range l.Projects {
		names = append(names, p.Name)
	}
	if want := []string{"own", "zulu"}; !reflect.DeepEqual(names, want) || l.More {
		t.Errorf("GET /api/v1/projects for a token bound to own and zulu, %d other projects first: %v (more %v); want %v alone", boundProjectsFirst, names, l.More, want)
	}
	if l := list(every); len(l.Projects) != view.ProjectListLimit || !l.More || l.Projects[0].Name != "aaa-00001" {
		t.Errorf("GET /api/v1/projects for a token of every project: %d projects from %+v, more %v; want the first %d and more", len(l.Projects), l.Projects[0], l.More, view.ProjectListLimit)
	}
}
