package httpserve

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
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

// Every server of QingLong speaks HTTP/1.1 over TLS, whatever the client
// offers: ql-edge's release build leaves net/http's HTTP/2 out (build.sh)
// and loses nothing by it only while this holds.
func TestTheServerSpeaksHTTP1OverTLSEvenToAClientOfferingHTTP2(t *testing.T) {
	t.Parallel()
	serverTLS, roots := tlstest.Pair(t)
	s, err := ListenWith("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}), Options{TLS: serverTLS})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, NextProtos: []string{"h2", "http/1.1"}}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://" + s.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Proto != "HTTP/1.1" || string(body) != "HTTP/1.1" {
		t.Errorf("a client offering h2 got %s (the handler saw %s), want HTTP/1.1: if a server is to speak HTTP/2, ql-edge's build (build.sh) must link it again", resp.Proto, body)
	}
	if resp.TLS == nil {
		t.Error("the response came over plain HTTP; want TLS")
	} else if resp.TLS.NegotiatedProtocol == "h2" {
		t.Error("the TLS handshake negotiated h2; want no h2")
	}
}

// An address no interface of this host has (192.0.2.1 is reserved for
// documentation, never assigned) is refused saying so, not as a busy
// address: "choose a free address" sends the operator after a process
// that does not exist.
func TestBindingAnAddressThisHostDoesNotHaveSaysSo(t *testing.T) {
	t.Parallel()
	ln, err := Bind("192.0.2.1:0", "--metrics-addr")
	if err == nil {
		ln.Close()
		t.Fatal("bound 192.0.2.1, an address no host has")
	}
	want := "cannot listen on 192.0.2.1:0 (--metrics-addr): no network interface of this host has that IP address; give one of its own addresses, or 0.0.0.0 for all of them, with --metrics-addr"
	if !strings.Contains(err.Error(), want) || qlerror.CodeOf(err) != qlerror.Unavailable {
		t.Fatalf("got %v (%v); want it to say %q", err, qlerror.CodeOf(err), want)
	}
}
