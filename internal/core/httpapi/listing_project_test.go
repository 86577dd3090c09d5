package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
)

// listingRows is the number of rows of key a listing answered, and its
// status and refusal's reason.
func listingRows(t *testing.T, h http.Handler, token, target, key string) (status, rows int, reason string) {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var b map[string]json.RawMessage
	_ = json.Unmarshal(rec.Body.Bytes(), &b)
	var list []json.RawMessage
	_ = json.Unmarshal(b[key], &list)
	var e struct{ Reason string }
	_ = json.Unmarshal(b["error"], &e)
	return rec.Code, len(list), e.Reason
}

// The Run, trigger and notification listings take ?project= by name as
// by id, as the command line and the console do: the same rows either
// way; a name no project has is 404 project_missing, never an empty page,
// and a name a bound token is not bound to 403 project_not_in_scope.
func TestAListingTakesItsProjectByNameAsByID(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	trig, projectID := publishTrigger(t, st, "hourly", "0 * * * *")
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Manual: st, Export: st, Notifications: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	if status, run, reason := postKeyed(t, h, "/api/v1/triggers/"+trig+"/run", tokens[apitoken.Operate], "by-name-1", ""); status != 200 || run == "" {
		t.Fatalf("run now: %d %s", status, reason)
	}
	elsewhere, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "elsewhere", apitoken.Read, 0, "other")
	if err != nil {
		t.Fatal(err)
	}
	read := tokens[apitoken.Read]
	for path, key := range map[string]string{"/api/v1/runs": "runs", "/api/v1/triggers": "triggers", "/api/v1/notifications": "notifications"} {
		_, byID, _ := listingRows(t, h, read, path+"?project="+projectID, key)
		status, byName, reason := listingRows(t, h, read, path+"?project=demo", key)
		if status != 200 || byName != byID || key != "notifications" && byName != 1 {
			t.Errorf("%s?project=demo: %d %s, %d rows; by its id %d rows", path, status, reason, byName, byID)
		}
		if status, _, reason := listingRows(t, h, read, path+"?project=nope", key); status != 404 || reason != "project_missing" {
			t.Errorf("%s?project=nope: %d %s; want 404 project_missing", path, status, reason)
		}
		if status, _, reason := listingRows(t, h, elsewhere, path+"?project=demo", key); status != 403 || reason != "project_not_in_scope" {
			t.Errorf("%s?project=demo with a token bound to another project: %d %s; want 403 project_not_in_scope", path, status, reason)
		}
	}
}

// A project pause or resume of a name no project has is refused as GET
// /api/v1/projects/{name} refuses it, 404 project_missing naming the
// projects there are, so that a client learns the right name from the
// refusal itself.
func TestAProjectPauseOfAnUnknownNameNamesTheProjectsThereAre(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	publishTrigger(t, st, "hourly", "0 * * * *")
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, ProjectPauser: st, Export: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	shown := request(t, h, "GET", "/api/v1/projects/nope", tokens[apitoken.Read], "")
	for _, action := range []string{"pause", "resume"} {
		a := request(t, h, "POST", "/api/v1/projects/nope/"+action, tokens[apitoken.Operate], "")
		if a.status != 404 || a.reason != "project_missing" || a.msg != shown.msg {
			t.Errorf("%s of an unknown project: %d %s %q; want 404 project_missing %q, as GET answers", action, a.status, a.reason, a.msg, shown.msg)
		}
	}
}
