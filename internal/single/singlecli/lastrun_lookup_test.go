package singlecli

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// A command that finds a trigger by name over --api-url asks
// GET /api/v1/triggers for no last Runs (?lastRun=false), and the server
// then reads none, while the listing without it still carries each
// trigger's last Run: the lookup discards them, and reading them costs the
// server one index probe per trigger of every page it pages through. Not
// parallel: it sets $QL_TOKEN.
func TestANameLookupOverTheAPIAsksForNoLastRunsWhileTheListingCarriesThem(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	reader, operator := newToken(t, dir, "reader", "read"), newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, body := call(t, "GET", base+"/api/v1/triggers", reader, "")
	list, _ := body["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", body)
	}
	trigger, _ := list[0].(map[string]any)["triggerId"].(string)
	if st, made := call(t, "POST", base+"/api/v1/triggers/"+trigger+"/run", operator, `{"requestId":"one"}`); st != 200 || made["runId"] == nil {
		t.Fatalf("run now: %d %v", st, made)
	}
	lastRun := func(query string) any {
		t.Helper()
		st, body := call(t, "GET", base+"/api/v1/triggers"+query, reader, "")
		list, _ := body["triggers"].([]any)
		if st != 200 || len(list) != 1 {
			t.Fatalf("GET /api/v1/triggers%s: %d %v", query, st, body)
		}
		return list[0].(map[string]any)["lastRun"]
	}
	if lastRun("") == nil || lastRun("?lastRun=true") == nil {
		t.Fatal("the listing without lastRun=false carries no last Run of a trigger that has one")
	}
	if got := lastRun("?lastRun=false"); got != nil {
		t.Fatalf("the listing with lastRun=false carries a last Run: %v", got)
	}
	if st, body := call(t, "GET", base+"/api/v1/triggers?lastRun=no", reader, ""); st != 400 || !strings.Contains(body["error"].(map[string]any)["message"].(string), `query parameter lastRun is "no"; give true or false, or leave it out for true`) {
		t.Fatalf("lastRun=no: %d %v; want 400 saying what it takes", st, body)
	}

	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	forward := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/triggers" {
			mu.Lock()
			asked = append(asked, r.URL.RawQuery)
			mu.Unlock()
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)
	if code, out, errOut := ql(t, "triggers", "show", "api/yearly", "--api-url", proxy.URL); code != 0 || !strings.Contains(out, "yearly") {
		t.Fatalf("triggers show by name over the API: %d %q %q", code, out, errOut)
	}
	mu.Lock()
	lookups := append([]string(nil), asked...)
	mu.Unlock()
	if len(lookups) == 0 {
		t.Fatal("triggers show by name did not page through GET /api/v1/triggers")
	}
	for _, q := range lookups {
		if v, err := url.ParseQuery(q); err != nil || v.Get("lastRun") != "false" {
			t.Fatalf("the name lookup asked GET /api/v1/triggers?%s; want lastRun=false", q)
		}
	}
	if code, out, errOut := ql(t, "triggers", "list", "-o", "json", "--api-url", proxy.URL); code != 0 || !strings.Contains(out, `"lastRun"`) {
		t.Fatalf("triggers list over the API: %d %q %q; want each trigger's last Run", code, out, errOut)
	}
}
