package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// atCheck is a log handler that calls probe with the HTTP listener's
// address when the start says it begins its integrity check (the start
// waits for the log call): what a request meets during the check.
type atCheck struct {
	slog.Handler
	mu    *sync.Mutex
	addr  *string
	probe func(addr string)
}

func (h atCheck) Handle(ctx context.Context, r slog.Record) error {
	var code, addr string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "code":
			code = a.Value.String()
		case "addr":
			addr = a.Value.String()
		}
		return true
	})
	h.mu.Lock()
	if code == CodeHTTPListening {
		*h.addr = addr
	}
	at := *h.addr
	h.mu.Unlock()
	if code == CodeIntegrityCheck {
		h.probe(at)
	}
	return h.Handler.Handle(ctx, r)
}

// startingAnswer is one answer met during the start's check.
type startingAnswer struct {
	status                   int
	contentType, retry, body string
}

// A browser opening the console while the server checks its database at
// start gets a small page in its language (as the console picks it:
// ?lang=, the cookie, Accept-Language), 503 with Retry-After, saying the
// server is checking its database and to wait, reloading itself; the API,
// /readyz and a form sent keep their JSON, a browser's Accept or not.
func TestABrowserOpeningTheConsoleDuringTheStartCheckGetsAPageSayingToWait(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Start(t.Context(), Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	type ask struct{ method, path, accept, language string }
	asks := []ask{
		{"GET", "/", browser, "en-US,en;q=0.9"},
		{"GET", "/runs?state=failed", browser, "zh-CN,zh;q=0.9,en;q=0.8"},
		{"GET", "/triggers?lang=zh", browser, "en"},
		{"HEAD", "/", browser, ""},
		{"GET", "/api/v1/runs", browser, "zh-CN"},
		{"GET", "/readyz", browser, "zh-CN"},
		{"POST", "/runs/cancel", browser, "zh-CN"},
		{"GET", "/runs", "application/json", "zh-CN"},
	}
	got := map[ask]startingAnswer{}
	var mu sync.Mutex
	var addr string
	h := atCheck{Handler: slog.NewTextHandler(io.Discard, nil), mu: &mu, addr: &addr, probe: func(addr string) {
		for _, a := range asks {
			req, err := http.NewRequest(a.method, "http://"+addr+a.path, nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Accept", a.accept)
			req.Header.Set("Accept-Language", a.language)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("%s %s during the check: %v", a.method, a.path, err)
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got[a] = startingAnswer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Retry-After"), string(body)}
		}
	}}
	// Always: after that clean stop the start would skip the check.
	srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", IntegrityCheck: CheckAlways, Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	pages := map[ask][]string{
		asks[0]: {`<html lang="en">`, "QingLong is checking its database", "The server checks its database file as it starts", `<meta http-equiv="refresh" content="5">`},
		asks[1]: {`<html lang="zh-CN">`, "QingLong 正在检查数据库", "请稍候", `<meta http-equiv="refresh" content="5">`},
		asks[2]: {`<html lang="zh-CN">`, "QingLong 正在检查数据库"},
	}
	for a, want := range pages {
		g := got[a]
		if g.status != http.StatusServiceUnavailable || g.contentType != "text/html; charset=utf-8" || g.retry != "5" {
			t.Errorf("%s %s (%s): %d %q Retry-After %q; want 503 text/html with Retry-After 5", a.method, a.path, a.language, g.status, g.contentType, g.retry)
		}
		for _, w := range want {
			if !strings.Contains(g.body, w) {
				t.Errorf("%s %s (%s): the page does not say %q:\n%s", a.method, a.path, a.language, w, g.body)
			}
		}
	}
	if g := got[asks[3]]; g.status != http.StatusServiceUnavailable || g.contentType != "text/html; charset=utf-8" || g.body != "" {
		t.Errorf("HEAD /: %d %q %q; want 503 text/html without a body", g.status, g.contentType, g.body)
	}
	for _, a := range asks[4:] {
		if g := got[a]; g.status != http.StatusServiceUnavailable || g.contentType != "application/json" || !strings.Contains(g.body, `"integrity_check"`) && !strings.Contains(g.body, "(integrity_check)") {
			t.Errorf("%s %s (Accept %s): %d %q %q; want its JSON 503 naming integrity_check", a.method, a.path, a.accept, g.status, g.contentType, g.body)
		}
	}
}
