package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// An address that is not a worker ingress (a replica's API, a proxy) is
// said with what to give --server instead, not a bare "Not Found"; it is
// tried again until the request's time runs out, as an unreachable one.
func TestAnAddressThatIsNoIngressSaysWhatToGive(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, testCredential, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = c.Register(ctx, workerproto.RegisterRequest{Capacity: 1})
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "--worker-addr") {
		t.Fatalf("register at a plain 404 server: %v; want the 404 and what to give --server", err)
	}
}
