package httpserve

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// A client that keeps sending plain HTTP to a TLS listener (a worker
// given http:// for an https:// ingress, retrying for ever) is said once
// a minute, the next warning counting the handshakes not said; a failed
// handshake from another host is said at once.
func TestARepeatedConnectionErrorFromOneHostIsSaidOnceAMinuteWithItsCount(t *testing.T) {
	t.Parallel()
	serverTLS, _ := tlstest.Pair(t)
	logs := &warnings{}
	clock := &fakeClock{at: time.Unix(1_800_000_000, 0)}
	errs := &countedLines{w: newConnErrors(logs.logger(), "test.connection_error", clock.now)}
	s, err := ListenWith("127.0.0.1:0", http.NotFoundHandler(), Options{
		TLS: serverTLS, ErrorLog: log.New(errs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	sent := 0
	plainHTTP := func(from string) {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		conn, err := d.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(conn)
		sent++
		// The server logs the error after it closed the connection.
		deadline := time.Now().Add(10 * time.Second)
		for errs.n.Load() < int64(sent) {
			if time.Now().After(deadline) {
				t.Fatalf("the server reported %d failed handshakes of %d", errs.n.Load(), sent)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for range 5 {
		plainHTTP("127.0.0.1")
	}
	if got := logs.lines(t); len(got) != 1 || !strings.Contains(got[0].Msg, "TLS handshake error from 127.0.0.1:") || got[0].Suppressed != 0 || got[0].Code != "test.connection_error" {
		t.Fatalf("5 failed handshakes from one host logged %+v, want the first one only", got)
	}
	plainHTTP("127.0.0.2")
	if got := logs.lines(t); len(got) != 2 || !strings.Contains(got[1].Msg, "TLS handshake error from 127.0.0.2:") {
		t.Fatalf("a failed handshake from a second host logged %+v, want it said at once", got)
	}
	clock.add(connErrorEvery - time.Second)
	plainHTTP("127.0.0.1")
	if got := logs.lines(t); len(got) != 2 {
		t.Fatalf("a failed handshake within a minute of the first logged %+v, want nothing more", got)
	}
	clock.add(time.Second)
	plainHTTP("127.0.0.1")
	if got := logs.lines(t); len(got) != 3 || !strings.Contains(got[2].Msg, "TLS handshake error from 127.0.0.1:") || got[2].Suppressed != 5 {
		t.Fatalf("a failed handshake a minute after the first logged %+v, want it said with the 5 not said since", got)
	}
}

// Connection errors from more hosts than are remembered (a scan) share
// one allowance past the bound, so neither the memory nor the log grows
// with the hosts; a host forgotten says the last of its errors not said
// with their count, so none goes uncounted.
func TestConnectionErrorsOfManyHostsGrowNeitherTheMemoryNorTheLog(t *testing.T) {
	t.Parallel()
	logs := &warnings{}
	clock := &fakeClock{at: time.Unix(1_800_000_000, 0)}
	c := newConnErrors(logs.logger(), "test.connection_error", clock.now)
	l := log.New(c, "", 0)
	handshake := func(host string, port int) {
		l.Printf("http: TLS handshake error from %s:%d: client sent an HTTP request to an HTTPS server", host, port)
	}
	for port := range 3 {
		handshake("10.9.9.9", 40000+port)
	}
	for i := range connErrorKeys - 1 + 500 {
		handshake(fmt.Sprintf("10.0.%d.%d", i/250, i%250+1), 50000)
	}
	if got := logs.lines(t); len(got) != connErrorKeys+1 || len(c.seen) != connErrorKeys {
		t.Fatalf("%d hosts' errors logged %d lines and remembered %d hosts, want %d lines (one a host remembered, one for the rest) and %d hosts",
			connErrorKeys+500, len(got), len(c.seen), connErrorKeys+1, connErrorKeys)
	}
	clock.add(connErrorEvery)
	handshake("10.8.8.8", 50000)
	got := logs.lines(t)
	if len(c.seen) != 1 {
		t.Errorf("a minute later a new host's error left %d hosts remembered, want the quiet ones forgotten", len(c.seen))
	}
	var forgotten, said bool
	for _, w := range got[connErrorKeys+1:] {
		forgotten = forgotten || (strings.Contains(w.Msg, "from 10.9.9.9:40002:") && w.Suppressed == 1)
		said = said || strings.Contains(w.Msg, "from 10.8.8.8:")
	}
	if !forgotten || !said || len(got) != connErrorKeys+3 {
		t.Errorf("forgetting the quiet hosts logged %+v, want the forgotten host's last error with the one before it not said, and the new host's", got[connErrorKeys+1:])
	}
}

// warnings collects a logger's records as JSON.
type warnings struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *warnings) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// warning is one record of warnings.
type warning struct {
	Level      string `json:"level"`
	Msg        string `json:"msg"`
	Code       string `json:"code"`
	Suppressed int    `json:"suppressed"`
}

func (w *warnings) lines(t *testing.T) []warning {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []warning
	for _, line := range strings.Split(strings.TrimSpace(w.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec warning
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Level != "WARN" {
			t.Fatalf("connection error logged at %s, want WARN: %q", rec.Level, line)
		}
		out = append(out, rec)
	}
	return out
}

// countedLines counts the lines the server wrote to its error log, said
// or not, so a test knows the server has reported an error.
type countedLines struct {
	w io.Writer
	n atomic.Int64
}

func (c *countedLines) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(1)
	return n, err
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// A handshake the client ended because it refused the listener's
// certificate is said as that, the client's refusal, not only as Go's
// "remote error: tls: bad certificate", which reads as the server's.
func TestAHandshakeTheClientEndedOverTheCertificateSaysTheClientRefusedIt(t *testing.T) {
	t.Parallel()
	serverTLS, _ := tlstest.Pair(t)
	logs := &warnings{}
	errs := &countedLines{w: newConnErrors(logs.logger(), "test.connection_error", time.Now)}
	s, err := ListenWith("127.0.0.1:0", http.NotFoundHandler(), Options{TLS: serverTLS, ErrorLog: log.New(errs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	// A client that trusts no authority: the system's do not sign the
	// test certificate.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}}}
	if resp, err := client.Get("https://" + s.Addr() + "/"); err == nil {
		resp.Body.Close()
		t.Fatal("a client that trusts no authority completed the handshake")
	}
	deadline := time.Now().Add(10 * time.Second)
	for errs.n.Load() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the server reported no failed handshake")
		}
		time.Sleep(5 * time.Millisecond)
	}
	got := logs.lines(t)
	if len(got) != 1 || !strings.Contains(got[0].Msg, "remote error: tls: ") || !strings.Contains(got[0].Msg, "the client refused this listener's certificate") {
		t.Fatalf("the failed handshake logged %+v, want it said as the client's refusal of the certificate", got)
	}
}
