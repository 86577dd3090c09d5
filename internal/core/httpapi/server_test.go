package httpapi

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/httpserve"
)

// Every response of the API server, errors and probes included, tells
// browsers not to sniff its type when served the way the replica serves it.
func TestEveryResponseIsNoSniff(t *testing.T) {
	t.Parallel()
	srv, err := httpserve.Listen("127.0.0.1:0", NewHandler(Config{Ready: func() (bool, string) { return false, "starting" }, Log: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(t.Context()) })
	for _, path := range []string{"/livez", "/readyz", "/api/v1/runs", "/nope"} {
		resp, err := http.Get("http://" + srv.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s (%d): X-Content-Type-Options %q, want nosniff", path, resp.StatusCode, got)
		}
	}
}
