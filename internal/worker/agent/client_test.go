package agent

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
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

// A send whose caller's deadline left it less than a send's least time
// says nothing of the replica: no "no answer" warning for it, where a
// send given its time and not answered is one.
func TestASendCutShortByItsCallersOwnDeadlineIsNoOutage(t *testing.T) {
	t.Parallel()
	slow := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == workerproto.PathLog {
			select {
			case <-slow:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(slow) })
	c, err := NewClient(srv.URL, testCredential, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	c.reach = newReachability(slog.New(slog.NewJSONHandler(&logs, nil)), time.Hour)
	if _, err := c.Heartbeat(t.Context(), workerproto.HeartbeatRequest{}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
	defer cancel()
	if _, err := c.Log(short, workerproto.LogRequest{}); err == nil {
		t.Fatal("a log request its caller gave 5ms was answered")
	}
	if strings.Contains(logs.String(), "server_unreachable") {
		t.Fatalf("a send its caller gave 5ms was said as an outage:\n%s", logs.String())
	}
	given, cancel := context.WithTimeout(t.Context(), 2*minLeaseTry)
	defer cancel()
	if _, err := c.Log(given, workerproto.LogRequest{}); err == nil {
		t.Fatal("the slow replica answered")
	}
	if !strings.Contains(logs.String(), "server_unreachable") {
		t.Fatalf("a send given %s and not answered was not said:\n%s", 2*minLeaseTry, logs.String())
	}
}

// A sole --server that answers it is stopping is said once, as
// information saying the worker keeps sending there, however often the
// request is sent again meanwhile; it is no outage. Once the replica has
// exited and refuses the connection, that is its restart, said as
// information too (server_restarting); only a restart that outlasts the
// repeat interval is warned of, as an outage.
func TestASoleReplicaThatStopsAndRestartsIsWarnedOfOnlyIfTheRestartOutlastsTheRepeat(t *testing.T) {
	t.Parallel()
	var stopping atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if stopping.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"code":"` + workerproto.CodeReplicaStopping + `","message":"this replica is stopping"}`))
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, testCredential, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	c.reach = newReachability(slog.New(slog.NewJSONHandler(&logs, nil)), time.Hour)
	if _, err := c.Heartbeat(t.Context(), workerproto.HeartbeatRequest{}); err != nil {
		t.Fatal(err)
	}
	stopping.Store(true)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := c.Heartbeat(ctx, workerproto.HeartbeatRequest{}); err == nil {
		t.Fatal("a stopping replica's heartbeat answer was taken as an answer")
	}
	said := records(t, logs.String(), "server_stopping")
	if len(said) != 1 || said[0]["level"] != "INFO" || said[0]["server"] != srv.URL || !strings.Contains(said[0]["msg"].(string), "again until it is back") {
		t.Fatalf("the stopping replica was said %v; want one INFO line naming it and that the worker sends there again", said)
	}
	if strings.Contains(logs.String(), "server_unreachable") {
		t.Fatalf("a replica that answered it stops was said unreachable:\n%s", logs.String())
	}
	srv.Close()
	ctx, cancel = context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := c.Heartbeat(ctx, workerproto.HeartbeatRequest{}); err == nil {
		t.Fatal("a closed replica answered")
	}
	restarting := records(t, logs.String(), "server_restarting")
	if len(restarting) != 1 || restarting[0]["level"] != "INFO" || restarting[0]["server"] != srv.URL {
		t.Fatalf("the exited replica's refused connections were said %v; want one INFO server_restarting line naming it:\n%s", restarting, logs.String())
	}
	if strings.Contains(logs.String(), "server_unreachable") {
		t.Fatalf("the restart of a replica that said it was stopping was warned of at once:\n%s", logs.String())
	}
	c.reach.mu.Lock()
	c.reach.repeat = 0
	c.reach.mu.Unlock()
	ctx, cancel = context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := c.Heartbeat(ctx, workerproto.HeartbeatRequest{}); err == nil {
		t.Fatal("a closed replica answered")
	}
	if warned := records(t, logs.String(), "server_unreachable"); len(warned) == 0 || warned[0]["level"] != "WARN" || warned[0]["unreachable_for_ms"] == nil {
		t.Fatalf("a restart past the repeat interval was not warned of with its length:\n%s", logs.String())
	}
}
