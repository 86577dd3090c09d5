package httpserve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func TestListenServesUntilShutdown(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	s, err := Listen("127.0.0.1:0", mux)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/livez": http.StatusOK, "/nope": http.StatusNotFound} {
		resp, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q, want nosniff", path, got)
		}
	}
	if _, err := Listen(s.Addr(), http.NotFoundHandler()); !qlerror.Is(err, qlerror.Unavailable) || !strings.Contains(err.Error(), "--http-addr") {
		t.Fatalf("listening on a taken address: %v, want an error naming --http-addr", err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + s.Addr() + "/livez"); err == nil {
		t.Fatal("server still answers after shutdown")
	}
}
