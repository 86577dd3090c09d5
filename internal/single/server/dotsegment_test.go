package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// getRaw sends GET target with the token (none when "") and returns the
// answer with its body.
func getRaw(t *testing.T, target, token string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := consoleClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// A path with a dot or empty segment is answered as its listener answers
// a path it does not serve, never with Go's redirect to its cleaned form
// (which carried none of the API's headers and skipped its token check):
// under /api/ the API's 401 without a token and 404 no_such_endpoint with
// one; elsewhere the console's 404 page with its security headers; on the
// metrics listener its 404.
func TestADotSegmentPathIsAnsweredAsAnUnknownPathNeverRedirected(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true",
		func(c *Config) { c.MetricsAddr = "127.0.0.1:0" })
	for _, path := range []string{"/api/v1/../../etc/passwd", "/api/v1/./runs", "/api/v1//runs", "/api/v1/runs/.."} {
		resp, body := getRaw(t, site.base+path, "")
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Location") != "" || resp.Header.Get("WWW-Authenticate") == "" ||
			resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s without a token: %d %v\n%s; want the API's 401 with its headers", path, resp.StatusCode, resp.Header, body)
		}
		resp, body = getRaw(t, site.base+path, site.tokens[apitoken.Read])
		var e struct{ Error struct{ Reason string } }
		_ = json.Unmarshal([]byte(body), &e)
		if resp.StatusCode != http.StatusNotFound || e.Error.Reason != "no_such_endpoint" || resp.Header.Get("Location") != "" {
			t.Errorf("GET %s with a token: %d %s; want the API's 404 no_such_endpoint", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/x/../signin", "/runs/./", "//signin"} {
		resp, body := getRaw(t, site.base+path, "")
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Location") != "" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(body, "There is no such page here.") {
			t.Errorf("GET %s: %d %v; want the console's 404 page with its headers\n%s", path, resp.StatusCode, resp.Header, body)
		}
	}
	for _, path := range []string{"/metrics/../metrics", "/x/../metrics", "//metrics"} {
		if resp, _ := getRaw(t, "http://"+site.srv.MetricsAddr()+path, ""); resp.StatusCode != http.StatusNotFound || resp.Header.Get("Location") != "" {
			t.Errorf("GET %s on the metrics listener: %d to %q, want 404", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if resp, _ := getRaw(t, "http://"+site.srv.MetricsAddr()+"/metrics", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /metrics on the metrics listener: %d, want 200", resp.StatusCode)
	}
}

// A subtree's root without its trailing slash (/assets) is answered as a
// path the console does not serve, the 404 page with the console's
// security headers, signed out or in, never with the mux's redirect to
// /assets/; and while the server starts, a path the mux would redirect is
// answered as every other path is then, 503 with no-store, never
// redirected.
func TestATrailingSlashOrCleaningRedirectIsAnsweredAsAnUnknownPath(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	signedIn := consoleClient(t)
	site.signIn(t, signedIn, site.tokens[apitoken.Read])
	for name, c := range map[string]*http.Client{"signed out": consoleClient(t), "signed in": signedIn} {
		for _, path := range []string{"/assets", "/assets?x=1"} {
			resp, err := c.Get(site.base + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Location") != "" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
				resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Cache-Control") != "no-store" || !strings.Contains(string(body), "There is no such page here.") {
				t.Errorf("%s, GET %s: %d to %q %v; want the console's 404 page with its headers", name, path, resp.StatusCode, resp.Header.Get("Location"), resp.Header)
			}
		}
	}
	if resp, _ := getRaw(t, site.base+"/assets/app.css", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /assets/app.css: %d, want the stylesheet", resp.StatusCode)
	}
	starting := startingHandler(func() (bool, string) { return false, "opening the database" })
	for _, path := range []string{"//livez", "/x/../readyz", "/a/./b"} {
		w := httptest.NewRecorder()
		starting.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Location") != "" || w.Header().Get("Cache-Control") != "no-store" || !strings.Contains(w.Body.String(), "server_not_ready") {
			t.Errorf("while starting, GET %s: %d %v %s; want the starting 503 with no-store", path, w.Code, w.Header(), w.Body)
		}
	}
}
