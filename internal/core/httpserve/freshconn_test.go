package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// A browser opens connections ahead of its requests (and Go's client
// keeps one it dialled but did not need): such a connection has sent
// nothing, and net/http's Shutdown waits five seconds before it counts as
// idle. A stop must not wait for it, or a stop bounded by five seconds
// fails as not clean whenever a browser is open on the console.
func TestAStopDoesNotWaitForAConnectionThatSentNothing(t *testing.T) {
	t.Parallel()
	s, err := Listen("127.0.0.1:0", http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	silent, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The connection is the server's once a request on another one was
	// answered after it: the server accepts in order.
	resp, err := http.Get("http://" + s.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Well under the five seconds net/http waits for a silent connection.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("a stop with a connection that sent nothing: %v, want a clean stop", err)
	}
	if err := silent.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var timeout net.Error
	if n, err := silent.Read(make([]byte, 1)); n != 0 || err == nil || errors.As(err, &timeout) && timeout.Timeout() {
		t.Fatalf("the silent connection after the stop: read %d bytes, %v; want it closed by the server", n, err)
	}
}
