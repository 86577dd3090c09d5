package cli

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A name lookup over --api-url asks for no last Runs; a server of an
// earlier build, which knows no lastRun parameter, refuses it in its own
// words (what the released build answers, byte for byte), and the lookup
// asks again without it rather than fail: a newer ql keeps working
// against an older server.
func TestANameLookupAgainstAnOlderServerAsksAgainWithoutLastRun(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Has("lastRun") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"invalid","message":"query parameter \"lastRun\" is not supported; use after, limit, project"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"triggers":[{"projectName":"shop","triggerId":"01a23f3a-fc4b-7941-84ad-5c381db0d48f","name":"nightly"}]}`))
	}))
	t.Cleanup(srv.Close)
	c := &apiClient{base: srv.URL, token: "qlt_test", http: srv.Client()}
	list, _, err := c.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 500})
	if err != nil || len(list) != 1 || list[0].Name != "nightly" {
		t.Fatalf("the lookup against an older server: %+v, %v; want its one trigger", list, err)
	}
	if len(asked) != 2 || asked[0] != "lastRun=false&limit=500" || asked[1] != "limit=500" {
		t.Fatalf("the lookup asked %q; want lastRun=false first, then the same without it", asked)
	}
}
