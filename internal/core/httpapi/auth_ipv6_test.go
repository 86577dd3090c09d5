package httpapi

import (
	"net/http/httptest"
	"testing"

	"golang.org/x/time/rate"
)

// failFrom sends an unknown token from addr and returns the status.
func failFrom(h *Handler, addr string) int {
	req := httptest.NewRequest("GET", "/api/v1/runs", nil)
	req.Host = "localhost"
	req.RemoteAddr = addr
	req.Header.Set("Authorization", "Bearer qlt_nope")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// The addresses of one IPv6 /64 share one budget of failed
// authentications, and another /64 has its own; IPv4 addresses keep one
// each. A client with a /64 can use any of its 2^64 addresses: keyed by
// the address, each would bring a fresh budget.
func TestThrottlesGroupIPv6ClientsByTheirSlash64(t *testing.T) {
	t.Parallel()
	h, _ := walkHandler(t, Config{Limits: Limits{FailedAuth: rate.Every(1 << 40), FailedAuthBurst: 3}})
	for _, addr := range []string{"[2001:db8:1:2::1]:4000", "[2001:db8:1:2::2]:4000", "[2001:db8:1:2:ffff:ffff:ffff:fffe]:4000"} {
		if got := failFrom(h, addr); got != 401 {
			t.Fatalf("failure from %s: %d, want 401", addr, got)
		}
	}
	if got := failFrom(h, "[2001:db8:1:2:abcd::9]:4000"); got != 429 {
		t.Errorf("a fourth address of the same /64, after three failures from its neighbours with a budget of three: %d, want 429", got)
	}
	if got := failFrom(h, "[2001:db8:1:3::1]:4000"); got != 401 {
		t.Errorf("an address of the next /64: %d, want 401 (its own budget)", got)
	}
	for range 3 {
		failFrom(h, "192.0.2.1:4000")
	}
	if got := failFrom(h, "192.0.2.2:4000"); got != 401 {
		t.Errorf("an IPv4 neighbour of a throttled address: %d, want 401 (IPv4 addresses are counted one by one)", got)
	}
	if got := failFrom(h, "[::ffff:192.0.2.1]:4000"); got != 429 {
		t.Errorf("the IPv4-mapped form of a throttled IPv4 address: %d, want 429", got)
	}
}
