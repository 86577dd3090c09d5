package server

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// probeAtCheck is a log handler that, when the start says it begins its
// integrity check, asks the listeners then (the start waits for the log
// call): what a probe meets during the check.
type probeAtCheck struct {
	slog.Handler
	mu     *sync.Mutex
	addrs  map[string]string // listener code → address
	codes  *[]string
	attrs  map[string]slog.Value // the integrity lines' attributes
	probes map[string]string     // path → status and body
}

func (h probeAtCheck) Handle(ctx context.Context, r slog.Record) error {
	var code string
	attrs := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value
		if a.Key == "code" {
			code = a.Value.String()
		}
		return true
	})
	h.mu.Lock()
	*h.codes = append(*h.codes, code)
	if addr, ok := attrs["addr"]; ok {
		h.addrs[code] = addr.String()
	}
	if code == CodeIntegrityCheck || code == CodeIntegrityChecked {
		for k, v := range attrs {
			h.attrs[code+"."+k] = v
		}
	}
	addrs := maps.Clone(h.addrs)
	h.mu.Unlock()
	if code == CodeIntegrityCheck {
		for _, u := range []string{"http://" + addrs[CodeHTTPListening] + "/livez", "http://" + addrs[CodeHTTPListening] + "/readyz",
			"http://" + addrs[CodeHTTPListening] + "/api/v1/runs", "http://" + addrs[CodeMetricsListening] + "/metrics"} {
			resp, err := http.Get(u)
			got := "refused: "
			if err != nil {
				got += err.Error()
			} else {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got = resp.Status + " " + strings.TrimSpace(string(body))
			}
			h.mu.Lock()
			h.probes[u[strings.LastIndex(u, "/"):]] = got
			h.mu.Unlock()
		}
	}
	return h.Handler.Handle(ctx, r)
}

// While a starting server checks its database file's integrity (seconds
// to minutes on a large file), its listeners answer: /livez 200, /readyz
// 503 integrity_check, the API 503 server_not_ready, a scrape 503; it logs
// the check's start with the file's size, and its end with its duration,
// then serves.
func TestAStartingServerAnswersProbesWhileItChecksItsDatabase(t *testing.T) {
	t.Parallel()
	var codes []string
	h := probeAtCheck{Handler: slog.NewTextHandler(io.Discard, nil), mu: &sync.Mutex{}, addrs: map[string]string{}, codes: &codes,
		attrs: map[string]slog.Value{}, probes: map[string]string{}}
	dir := t.TempDir()
	// A database to check: the first start makes it.
	first, err := Start(t.Context(), Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Always: after that clean stop the start would skip the check.
	srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", IntegrityCheck: CheckAlways, Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	h.mu.Lock()
	defer h.mu.Unlock()
	for path, want := range map[string]string{
		"/livez":   `200 OK {"status":"ok"}`,
		"/readyz":  `503 Service Unavailable {"reason":"integrity_check","status":"unavailable"}`,
		"/runs":    `503 Service Unavailable {"error":{"code":"unavailable","message":"the server is starting (integrity_check); retry once /readyz answers 200","reason":"server_not_ready"}}`,
		"/metrics": "503 Service Unavailable starting: integrity_check",
	} {
		if got := h.probes[path]; got != want {
			t.Errorf("%s during the integrity check: %q; want %q", path, got, want)
		}
	}
	order := []string{CodeHTTPListening, CodeMetricsListening, CodeIntegrityCheck, CodeIntegrityChecked, CodeReady}
	var seen []string
	for _, c := range codes {
		if slices.Contains(order, c) {
			seen = append(seen, c)
		}
	}
	if !slices.Equal(seen, order) {
		t.Errorf("the start logged %v; want %v in that order", seen, order)
	}
	if size := h.attrs[CodeIntegrityCheck+".size_bytes"]; size.Kind() != slog.KindInt64 || size.Int64() <= 0 {
		t.Errorf("the check's first line gives the size %v; want the database file's size in bytes", size)
	}
	if d, ok := h.attrs[CodeIntegrityChecked+".duration_ms"]; !ok || d.Kind() != slog.KindInt64 || d.Int64() < 0 {
		t.Errorf("the check's last line gives the duration %v; want milliseconds", d)
	}
}
