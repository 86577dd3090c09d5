package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/console"
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
	shutdownAtCleanup(t, srv)
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

// Every answer over HTTPS — probes, API and console alike — tells the
// browser to use HTTPS only (Strict-Transport-Security); none over plain
// HTTP does, where the header means nothing and would be wrong.
func TestEveryAnswerOverTLSCarriesStrictTransportSecurity(t *testing.T) {
	t.Parallel()
	h := NewHandler(Config{Ready: func() (bool, string) { return false, "starting" }, Log: slog.New(slog.DiscardHandler),
		Console: console.New(console.Config{Log: slog.New(slog.DiscardHandler)})})
	tlsSrv, plain := httptest.NewTLSServer(h), httptest.NewServer(h)
	t.Cleanup(tlsSrv.Close)
	t.Cleanup(plain.Close)
	for _, path := range []string{"/livez", "/api/v1/runs", "/signin", "/nope"} {
		resp, err := tlsSrv.Client().Get(tlsSrv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(got, "max-age=") {
			t.Errorf("GET %s over TLS (%d): Strict-Transport-Security %q, want max-age", path, resp.StatusCode, got)
		}
		resp, err = plain.Client().Get(plain.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Strict-Transport-Security"); got != "" {
			t.Errorf("GET %s over plain HTTP: Strict-Transport-Security %q, want none", path, got)
		}
	}
}
