package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/httpserve"
)

// Headers past MaxHeaderSize are refused in JSON, 431 with their reason,
// as every other refusal of the API is, on the server every profile
// serves the API with: not in Go's plain text, which the server keeps for
// headers past what it reads at all. Headers just under the limit are
// served.
func TestHeadersPastTheLimitAreRefusedInJSONWithTheirReason(t *testing.T) {
	t.Parallel()
	h, tok := reasonsServer(t, Limits{}, true)
	srv, err := httpserve.Listen("127.0.0.1:0", h)
	if err != nil {
		t.Fatal(err)
	}
	shutdownAtCleanup(t, srv)
	get := func(extra int) (*http.Response, errorAnswer) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "GET", "http://"+srv.Addr()+"/api/v1/runs", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+tok["read"])
		req.Header.Set("X-Padding", strings.Repeat("x", extra))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a errorAnswer
		if resp.StatusCode >= 400 {
			if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
				t.Fatalf("a %d answer that is not JSON: %v", resp.StatusCode, err)
			}
		}
		return resp, a
	}
	if resp, a := get(MaxHeaderSize + 1); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || a.Error.Reason != RefusalHeadersTooLarge ||
		resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers past the limit: %d %q reason %q; want 431 JSON %q", resp.StatusCode, resp.Header.Get("Content-Type"), a.Error.Reason, RefusalHeadersTooLarge)
	}
	if resp, a := get(MaxHeaderSize - 1024); resp.StatusCode != http.StatusOK {
		t.Errorf("headers under the limit: %d %s; want 200", resp.StatusCode, a.Error.Message)
	}
}
