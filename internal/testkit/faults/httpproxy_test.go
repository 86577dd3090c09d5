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
	lost := p.ArmReplyLoss("/a")
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
