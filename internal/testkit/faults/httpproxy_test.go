package faults

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func startEchoBehindProxy(t *testing.T) (*HTTPProxy, *atomic.Int64) {
	t.Helper()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(append([]byte("echo:"), b...))
	}))
	t.Cleanup(srv.Close)
	p, err := StartHTTPProxy(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, &served
}

func postVia(client *http.Client, url, body string) (string, error) {
	resp, err := client.Post(url, "text/plain", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// An armed reply loss forwards the request, lets the server answer, and
// closes the client's connection without the answer; the next request
// goes through.
func TestHTTPProxyLosesTheArmedReplyAfterTheServerAnswered(t *testing.T) {
	t.Parallel()
	p, served := startEchoBehindProxy(t)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	lost := p.ArmReplyLoss("/a", nil)
	if _, err := postVia(client, p.URL()+"/a", "one"); err == nil {
		t.Fatal("the armed request got a reply")
	}
	select {
	case l := <-lost:
		if l.Status != http.StatusOK || string(l.Body) != "echo:one" || served.Load() != 1 {
			t.Fatalf("lost reply %+v after %d served, want the server's answer to the one request", l, served.Load())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no lost reply reported")
	}
	if got, err := postVia(client, p.URL()+"/a", "two"); err != nil || got != "echo:two" || p.Forwarded("/a") != 2 {
		t.Fatalf("after the loss: %q %v, %d forwarded", got, err, p.Forwarded("/a"))
	}
}

// A partition forwards nothing until it heals; the held request fails
// without reaching the server.
func TestHTTPProxyPartitionForwardsNothingUntilHealed(t *testing.T) {
	t.Parallel()
	p, served := startEchoBehindProxy(t)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	p.Partition()
	failed := make(chan error, 1)
	go func() {
		_, err := postVia(client, p.URL()+"/b", "held")
		failed <- err
	}()
	select {
	case err := <-failed:
		t.Fatalf("a request returned during the partition: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	p.Heal()
	if err := <-failed; err == nil || served.Load() != 0 || p.Forwarded("/b") != 0 {
		t.Fatalf("held request: %v, %d served; want a failure and nothing served", err, served.Load())
	}
	if got, err := postVia(client, p.URL()+"/b", "after"); err != nil || got != "echo:after" {
		t.Fatalf("after healing: %q %v", got, err)
	}
}

// A filtered reply loss lets the replies it does not match through.
func TestHTTPProxyLosesOnlyAMatchingReply(t *testing.T) {
	t.Parallel()
	p, _ := startEchoBehindProxy(t)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	lost := p.ArmReplyLoss("/c", func(b []byte) bool { return strings.Contains(string(b), "grant") })
	if got, err := postVia(client, p.URL()+"/c", "empty"); err != nil || got != "echo:empty" {
		t.Fatalf("an unmatched reply: %q %v", got, err)
	}
	if _, err := postVia(client, p.URL()+"/c", "grant"); err == nil {
		t.Fatal("the matching reply arrived")
	}
	if l := <-lost; string(l.Body) != "echo:grant" {
		t.Fatalf("lost %q", l.Body)
	}
}

// A held request reaches the server only when released, and not at all
// when its client gave up meanwhile.
func TestHTTPProxyHoldsARequestUntilReleased(t *testing.T) {
	t.Parallel()
	p, served := startEchoBehindProxy(t)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	h := p.ArmHold("/d")
	got := make(chan string, 1)
	go func() {
		b, _ := postVia(client, p.URL()+"/d", "held")
		got <- b
	}()
	<-h.Held()
	if served.Load() != 0 {
		t.Fatal("the held request was served")
	}
	if p.InFlight("/d") != 0 {
		t.Fatal("a held request counts as in flight")
	}
	h.Release()
	if b := <-got; b != "echo:held" {
		t.Fatalf("released request: %q", b)
	}
	quick := &http.Client{Transport: &http.Transport{}, Timeout: 100 * time.Millisecond}
	t.Cleanup(quick.CloseIdleConnections)
	h = p.ArmHold("/d")
	if _, err := postVia(quick, p.URL()+"/d", "gave up"); err == nil {
		t.Fatal("a held request returned")
	}
	<-h.Held()
	// The server notices the closed connection asynchronously; a dead
	// worker's requests are released long after it died.
	time.Sleep(100 * time.Millisecond)
	h.Release()
	time.Sleep(50 * time.Millisecond) // nothing may arrive; there is no event to wait for
	if served.Load() != 1 || p.Forwarded("/d") != 1 {
		t.Fatalf("%d served, %d forwarded; a request whose client gave up was forwarded", served.Load(), p.Forwarded("/d"))
	}
}
