package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// GET /api/v1/audit answers a token bound to projects with the records
// of its projects only, in full pages: none of another project, none of
// a token or a user (no one project's); a token of every project reads
// them all, and a token below admin is refused.
func TestABoundTokenReadsOnlyItsProjectsAuditRecords(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	projectWithRun(t, st, "alpha")
	projectWithRun(t, st, "charlie")
	for _, p := range []string{"charlie", "alpha", "charlie"} {
		for _, pause := range []bool{true, false} {
			if _, err := st.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: p, Pause: pause, Actor: "ops"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	bound, _, err := apitoken.Create(t.Context(), st, "root", ids.New(), "alpha-admin", apitoken.Admin, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	every, _, err := apitoken.Create(t.Context(), st, "root", ids.New(), "ops", apitoken.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	reader, _, err := apitoken.Create(t.Context(), st, "root", ids.New(), "viewer", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Audit: st, Export: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	list := func(token, query string) (int, audit.Page) {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/api/v1/audit"+query, nil)
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		raw, _ := io.ReadAll(rec.Body)
		var page audit.Page
		if rec.Code == http.StatusOK {
			if err := json.Unmarshal(raw, &page); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
		}
		return rec.Code, page
	}
	status, page := list(bound, "?limit=2")
	projects := func(rs []audit.Record) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Project)
		}
		return out
	}
	if status != http.StatusOK || len(page.Records) != 2 || page.Next == "" || slices.ContainsFunc(page.Records, func(r audit.Record) bool { return r.Project != "alpha" }) {
		t.Fatalf("a token bound to alpha, a page of 2: %d %+v; want 2 of alpha's records and a next page", status, page)
	}
	_, rest := list(bound, "?limit=100&after="+page.Next)
	if got := projects(append(page.Records, rest.Records...)); len(got) != 4 || slices.ContainsFunc(got, func(p string) bool { return p != "alpha" }) {
		t.Fatalf("a token bound to alpha read records of %q; want alpha's 4 (its pause and resume, and its trigger's) and none other", got)
	}
	if _, all := list(every, "?limit=1000"); len(all.Records) != 12+3 {
		t.Fatalf("a token of every project read %d records; want the 12 of the pauses and the 3 of the tokens made", len(all.Records))
	}
	if _, charlie := list(bound, "?project=charlie"); len(charlie.Records) != 0 {
		t.Fatalf("a token bound to alpha asking for charlie's records read %+v; want none", charlie.Records)
	}
	if status, _ := list(reader, ""); status != http.StatusForbidden {
		t.Fatalf("an operate token listing the audit trail: %d, want 403", status)
	}
}
