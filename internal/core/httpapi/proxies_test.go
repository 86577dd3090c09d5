package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// The client is the peer unless the peer is a trusted proxy; then the
// nearest X-Forwarded-For address that is not one, never what a client
// wrote to the left of it.
func TestOnlyATrustedProxyNamesTheClient(t *testing.T) {
	proxies, err := ParseTrustedProxies([]string{"10.0.0.0/24", "192.0.2.7", "::ffff:198.51.100.1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ peer, xff, want string }{
		{"203.0.113.5:4000", "198.51.100.9", "203.0.113.5:4000"},
		{"10.0.0.3:4000", "198.51.100.9", "198.51.100.9:4000"},
		{"10.0.0.3:4000", "1.2.3.4, 198.51.100.9, 192.0.2.7", "198.51.100.9:4000"},
		{"198.51.100.1:4000", "::ffff:203.0.113.8", "203.0.113.8:4000"},
		{"10.0.0.3:4000", "", "10.0.0.3:4000"},
		{"10.0.0.3:4000", "10.0.0.4", "10.0.0.3:4000"},
		{"10.0.0.3:4000", "not-an-address", "10.0.0.3:4000"},
		{"10.0.0.3:4000", "2001:db8::1", "[2001:db8::1]:4000"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientAddr(r, proxies); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
	if _, err := ParseTrustedProxies([]string{"10.0.0.0/33"}); err == nil {
		t.Error("a malformed prefix is accepted")
	}
}

// Behind a trusted proxy, failed authentications are throttled per client,
// not per proxy: one client's failures leave another's requests alone.
func TestFailedAuthenticationsBehindATrustedProxyAreThrottledPerClient(t *testing.T) {
	proxies, err := ParseTrustedProxies([]string{"192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	// Malformed tokens fail before any lookup, so no token store is needed.
	f := fakeReaders{}
	h := NewHandler(Config{Runs: f, Triggers: f, Detail: f, TrustedProxies: proxies,
		Limits: Limits{FailedAuth: rate.Every(1 << 40), FailedAuthBurst: 2},
		Ready:  func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	from := func(client string) int {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/runs", nil) // from 192.0.2.1, the proxy
		r.Host = "localhost"
		r.Header.Set("X-Forwarded-For", client)
		r.Header.Set("Authorization", "Bearer qlt_nope")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for range 2 {
		if st := from("203.0.113.5"); st != http.StatusUnauthorized {
			t.Fatalf("a failure: %d, want 401", st)
		}
	}
	if st := from("203.0.113.5"); st != http.StatusTooManyRequests {
		t.Fatalf("the failing client's next try: %d, want 429", st)
	}
	if st := from("198.51.100.9"); st != http.StatusUnauthorized {
		t.Fatalf("another client through the same proxy: %d, want 401 (checked, not throttled)", st)
	}
	if s := h.Stats(); s.AuthFailures != 3 || s.AuthThrottled != 1 {
		t.Fatalf("stats %+v, want 3 failures and 1 throttled", s)
	}
}

// A --trusted-proxies prefix covering public space wider than a CDN's
// proxy block (0.0.0.0/0, ::/0, a /8 of public IPv4) is refused, reason
// trusted_proxies_too_wide, saying what to list: every client in it could
// forge its address past the sign-in throttle and into audit records. A
// private block of any width, and a CDN's published ranges, are taken.
func TestATrustedProxyRangeThePublicCanReachIsRefused(t *testing.T) {
	t.Parallel()
	for _, entry := range []string{"0.0.0.0/0", "::/0", "128.0.0.0/1", "1.0.0.0/8", "2000::/3", "2400:cb00::/16"} {
		_, err := ParseTrustedProxies([]string{"10.0.0.7", entry})
		if qlerror.ReasonOf(err) != RefusalTrustedProxiesTooWide || !strings.Contains(err.Error(), `--trusted-proxies entry "`+entry+`" covers`) ||
			!strings.Contains(err.Error(), "list the reverse proxies in front of the server") {
			t.Errorf("--trusted-proxies %s: %v; want it refused as too wide, saying what to list", entry, err)
		}
	}
	if _, err := ParseTrustedProxies([]string{"0.0.0.0/0"}); !strings.Contains(err.Error(), "covers every address") {
		t.Errorf("--trusted-proxies 0.0.0.0/0: %v; want it said to cover every address", err)
	}
	if _, err := ParseTrustedProxies([]string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7", "104.16.0.0/13", "2a06:98c0::/29", "203.0.113.0/24", "198.51.100.7"}); err != nil {
		t.Errorf("private blocks and a CDN's ranges: %v; want them taken", err)
	}
}
