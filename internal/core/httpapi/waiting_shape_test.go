package httpapi

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A queued Run's waiting object, as a single-node server answers it,
// gives nothing of workers — no labels and no workers count, which only
// the cluster's reasons count — and the answer conforms to the
// description of GET /api/v1/runs/{id}, which requires neither.
func TestASingleNodesWaitingRunAnswersNoWorkersAndNoLabels(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	trig, _ := publishTrigger(t, st, "hourly", "0 * * * *")
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Manual: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	operate, read := tokens[apitoken.Operate], tokens[apitoken.Read]
	runNow := func(key string) string {
		t.Helper()
		a := request(t, h, "POST", "/api/v1/triggers/"+trig+"/run", operate, `{"requestId":"`+key+`"}`)
		var started struct {
			RunID string `json:"runId"`
		}
		if a.status != 200 || json.Unmarshal([]byte(a.raw), &started) != nil || started.RunID == "" {
			t.Fatalf("run now: %d %s", a.status, a.raw)
		}
		return started.RunID
	}
	// The first Run takes the server's slot; the second waits for it.
	first := runNow("shape-1")
	d, err := st.RunGet(t.Context(), first)
	if err != nil || len(d.Attempts) != 1 {
		t.Fatalf("the first Run: %+v %v", d, err)
	}
	if _, _, _, err := st.AttemptStart(t.Context(), d.Attempts[0].ID, "shape-owner", ""); err != nil {
		t.Fatal(err)
	}
	second := runNow("shape-2")
	a := request(t, h, "GET", "/api/v1/runs/"+second, read, "")
	var answer struct {
		Waiting map[string]any `json:"waiting"`
	}
	if a.status != 200 || json.Unmarshal([]byte(a.raw), &answer) != nil || answer.Waiting["reason"] != "server_busy" {
		t.Fatalf("GET the queued Run: %d %s; want it waiting, server_busy", a.status, a.raw)
	}
	for _, field := range []string{"labels", "workers"} {
		if _, ok := answer.Waiting[field]; ok {
			t.Errorf("the single-node server's waiting object gives %q: %s", field, a.raw)
		}
	}
	var doc, whole map[string]any
	if b := request(t, h, "GET", openAPIPath, read, ""); b.status != 200 || json.Unmarshal([]byte(b.raw), &doc) != nil {
		t.Fatalf("GET %s: %d %s", openAPIPath, b.status, b.raw)
	}
	if err := json.Unmarshal([]byte(a.raw), &whole); err != nil {
		t.Fatal(err)
	}
	schema := doc["paths"].(map[string]any)["/api/v1/runs/{id}"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if errs := conforms(doc, schema, whole, "answer"); len(errs) > 0 {
		t.Errorf("the waiting Run's answer %s departs from its schema:\n%s", a.raw, strings.Join(errs, "\n"))
	}
}
