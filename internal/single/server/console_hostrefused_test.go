package server

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A browser opening the console by a name the server does not answer to
// (raspberrypi.local, not in --allowed-hosts) gets a page in its language,
// 421, saying the names the server answers to, linking the address the
// request reached and naming the flag that adds the name; the API, and a
// client that asks for no HTML, keep the JSON refusal.
func TestABrowserOpeningTheConsoleByAnUnknownNameGetsAPageInItsLanguageNamingTheFlag(t *testing.T) {
	t.Parallel()
	srv, err := Start(t.Context(), Config{DataDir: installedDir(t), HTTPAddr: "127.0.0.1:0", Binary: "ql-edge", Cadence: time.Hour,
		StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	get := func(path, accept, language string) (*http.Response, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+srv.Addr()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "raspberrypi.local:" + strings.Split(srv.Addr(), ":")[1]
		req.Header.Set("Accept", accept)
		req.Header.Set("Accept-Language", language)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	const browser = "text/html,application/xhtml+xml,*/*;q=0.8"
	for _, c := range []struct{ language, want string }{
		{"zh-CN,zh;q=0.9,en;q=0.8", "此服务器不响应 raspberrypi.local"},
		{"en-US,en;q=0.9", "This server does not answer to raspberrypi.local"},
	} {
		resp, page := get("/", browser, c.language)
		if resp.StatusCode != http.StatusMisdirectedRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(page, c.want) ||
			!strings.Contains(page, "--allowed-hosts raspberrypi.local") || !strings.Contains(page, `href="http://`+srv.Addr()+`/"`) || !strings.Contains(page, "localhost") {
			t.Errorf("a browser (%s) opening the console as raspberrypi.local: %d %q, want 421, a page saying %q, naming the flag and linking http://%s/:\n%s",
				c.language, resp.StatusCode, resp.Header.Get("Content-Type"), c.want, srv.Addr(), page)
		}
	}
	for _, c := range []struct{ path, accept string }{{"/api/v1/runs", browser}, {"/", "application/json"}} {
		resp, body := get(c.path, c.accept, "zh-CN")
		if resp.StatusCode != http.StatusMisdirectedRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(body, "--allowed-hosts raspberrypi.local") {
			t.Errorf("GET %s (Accept %s) as raspberrypi.local: %d %q %s; want the guard's 421 JSON", c.path, c.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}
