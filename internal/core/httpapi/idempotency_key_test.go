package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// postKeyed sends POST target with token, an Idempotency-Key header when
// key is not empty and a JSON body when body is not empty, and reads the
// run id answered and the refusal's reason.
func postKeyed(t *testing.T, h http.Handler, target, token, key, body string) (status int, runID, reason string) {
	t.Helper()
	req := httptest.NewRequest("POST", target, strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var b struct {
		RunID string `json:"runId"`
		Error struct{ Reason string }
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &b)
	return rec.Code, b.RunID, b.Error.Reason
}

// A run now asked with the Idempotency-Key header and no requestId makes
// one Run however often it is asked, the same as the body's requestId of
// that id (quoted as a structured field or not); a header and a body
// naming two different ids is refused, nothing admitted.
func TestTheIdempotencyKeyHeaderMakesARunNowSafeToRetry(t *testing.T) {
	t.Parallel()
	h, tokens, trig, _ := onePublishedTrigger(t)
	op := tokens[apitoken.Operate]
	target := "/api/v1/triggers/" + trig + "/run"
	status, first, reason := postKeyed(t, h, target, op, "retry-1", "")
	if status != 200 || first == "" {
		t.Fatalf("run now with Idempotency-Key alone: %d %s; want 200 and a Run", status, reason)
	}
	for name, ask := range map[string][2]string{
		"the header again":      {"retry-1", ""},
		"the header quoted":     {`"retry-1"`, "{}"},
		"the body's requestId":  {"", `{"requestId":"retry-1"}`},
		"both, naming the same": {"retry-1", `{"requestId":"retry-1"}`},
	} {
		if status, again, reason := postKeyed(t, h, target, op, ask[0], ask[1]); status != 200 || again != first {
			t.Errorf("%s: %d %s run %q; want 200 and run %s again", name, status, reason, again, first)
		}
	}
	if status, _, reason := postKeyed(t, h, target, op, "retry-2", `{"requestId":"retry-3"}`); status != 400 || reason != string(RefusalIdempotencyKeyMismatch) {
		t.Errorf("a header and a body naming two ids: %d %s; want 400 %s", status, reason, RefusalIdempotencyKeyMismatch)
	}
	if status, _, reason := postKeyed(t, h, target, op, "", "{}"); status != 400 || reason != string(RefusalBodyFieldMissing) {
		t.Errorf("neither: %d %s; want 400 %s", status, reason, RefusalBodyFieldMissing)
	}
	if status, second, _ := postKeyed(t, h, target, op, "retry-3", ""); status != 200 || second == first {
		t.Errorf("another key: %d run %q; want a second Run, not %s", status, second, first)
	}
}

// A re-run takes the Idempotency-Key header as its request id too: asked
// with it alone, it goes on to the Run (an unknown one is 404), never 400
// for a missing requestId; a header and a body naming two ids is refused.
func TestTheIdempotencyKeyHeaderIsAReRunsRequestID(t *testing.T) {
	t.Parallel()
	h, tokens, _, _ := onePublishedTrigger(t)
	target := "/api/v1/runs/" + someID + "/rerun"
	if status, _, reason := postKeyed(t, h, target, tokens[apitoken.Operate], "again-1", ""); status != 404 || reason != "run_missing" {
		t.Errorf("a re-run with Idempotency-Key alone: %d %s; want 404 run_missing", status, reason)
	}
	if status, _, reason := postKeyed(t, h, target, tokens[apitoken.Operate], "again-1", `{"requestId":"again-2"}`); status != 400 || reason != string(RefusalIdempotencyKeyMismatch) {
		t.Errorf("a header and a body naming two ids: %d %s; want 400 %s", status, reason, RefusalIdempotencyKeyMismatch)
	}
}
