package httpapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// The records of project "other" come first in every listing's order,
// boundOthers of them, then boundOwn of project "own".
const (
	boundOthers = 300
	boundOwn    = 30
	boundPage   = 20
)

// boundListings is what a listing's store must serve for the test.
type boundListings interface {
	run.Reader
	schedule.StatusReader
	schedule.DetailReader
	schedule.Manual
	notify.Manager
}

// TestABoundTokensPageIsFullWhenOtherProjectsRecordsComeFirst: with 300
// Runs, triggers and notifications of another project first in each
// listing's order and 30 of its own after them, a token bound to its
// project gets pages of 20 of its own, the first one full, and following
// next reads all 30 of them and nothing of the other project, on both
// profiles' stores.
func TestABoundTokensPageIsFullWhenOtherProjectsRecordsComeFirst(t *testing.T) {
	t.Parallel()
	t.Run("standalone", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "ql.db")
		st := sqlitetest.OpenAt(t, path, func() int64 { return time.Now().UnixMilli() })
		svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
		publish := func(doc string) {
			parsed, err := apply.Parse("doc.yaml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := apply.Apply(t.Context(), svc, parsed, ids.New); err != nil {
				t.Fatal(err)
			}
		}
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		outbox := func(projectID, name string) {
			if _, err := db.Exec(`INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
				next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES (?1, ?2, 'sha256:' || printf('%064d', 0), 'run:' || ?1, 'failed', '{}', ?3, 'dead', 1, 1, 1)`,
				ids.New(), projectID, `{"project":"`+name+`"}`); err != nil {
				t.Fatal(err)
			}
		}
		boundPagesAreFull(t, st, publish, outbox)
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		env := clustertest.New(t)
		rt := env.Runtime(t, "replica-bound", 30*time.Second)
		publish := func(doc string) { env.Apply(t, doc) }
		outbox := func(projectID, name string) {
			env.Exec(t, `INSERT INTO qinglong.notification_outbox (id, project_id, rule_key, subject, event, channel, payload, state,
				next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES ($1::text::uuid, $2, 'sha256:' || repeat('0', 64), 'run:' || $1::text, 'failed', '{}', $3, 'dead', 1, 1, 1)`,
				ids.New(), projectID, `{"project":"`+name+`"}`)
		}
		boundPagesAreFull(t, rt, publish, outbox)
	})
}

// boundPagesAreFull publishes and admits the other project's records and
// then its own's in each listing's order (triggers oldest first, Runs and
// notifications newest first), and reads each listing with a token bound
// to "own".
func boundPagesAreFull(t *testing.T, st boundListings, publish func(doc string), outbox func(projectID, name string)) {
	publish(clustertest.Triggers("other", boundOthers, clustertest.QuietCron()))
	publish(clustertest.Triggers("own", boundOwn, clustertest.QuietCron()))
	all, _, err := st.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 500})
	if err != nil || len(all) != boundOthers+boundOwn {
		t.Fatalf("triggers published: %d, %v", len(all), err)
	}
	for _, project := range []string{"own", "other"} {
		for _, tg := range all {
			if tg.ProjectName != project {
				continue
			}
			if _, err := st.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "test"}); err != nil {
				t.Fatal(err)
			}
			outbox(tg.ProjectID, project)
		}
	}
	tokens, _ := tokenStore(t)
	bound, _, err := apitoken.Create(t.Context(), tokens, "tester", ids.New(), "own-ci", apitoken.Read, 0, "own")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Notifications: st, Tokens: tokens,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	for _, l := range []struct{ path, rows, project string }{
		{"/api/v1/runs?", "runs", "projectName"},
		{"/api/v1/triggers?lastRun=false&", "triggers", "projectName"},
		{"/api/v1/notifications?", "notifications", "project"},
	} {
		seen, cursor := 0, ""
		for page := 0; ; page++ {
			rows, next := boundListing(t, h, bound, fmt.Sprintf("%slimit=%d%s", l.path, boundPage, cursor), l.rows, l.project)
			if page == 0 && (len(rows) != boundPage || next == "") {
				t.Fatalf("%s's first page for a token bound to own: %d rows of %v, next %q; want %d of own's and a next page", l.path, len(rows), rows, next, boundPage)
			}
			for _, p := range rows {
				if p != "own" {
					t.Fatalf("%s for a token bound to own holds a row of %q", l.path, p)
				}
			}
			seen += len(rows)
			if next == "" || page > boundOwn {
				break
			}
			cursor = "&after=" + next
		}
		if seen != boundOwn {
			t.Errorf("%s's pages for a token bound to own hold %d rows; want all %d of own's", l.path, seen, boundOwn)
		}
	}
}

// boundListing reads one page of a listing and returns each row's project
// (its field projectKey) and the page's next.
func boundListing(t *testing.T, h http.Handler, token, target, rowsKey, projectKey string) ([]string, string) {
	t.Helper()
	req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, target, nil)
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 200 {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	var rows []map[string]any
	if err := json.Unmarshal(body[rowsKey], &rows); err != nil {
		t.Fatalf("GET %s: %s: %v", target, body[rowsKey], err)
	}
	var next string
	if raw, ok := body["next"]; ok {
		_ = json.Unmarshal(raw, &next)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i], _ = r[projectKey].(string)
	}
	return out, next
}
