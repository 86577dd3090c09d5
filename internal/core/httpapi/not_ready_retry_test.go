package httpapi

import "testing"

// A server that is not ready answers every route but the probes 503 with
// a Retry-After, and says the same wait in its params, so that an HTTP
// client's own retry policy waits rather than gives up or asks again at
// once.
func TestAServerNotReadyTellsTheClientWhenToRetry(t *testing.T) {
	t.Parallel()
	h, tok := reasonsServer(t, Limits{}, false)
	a := askRefused(t, h, "GET", "/api/v1/runs", tok["read"], "")
	if a.status != 503 || a.header.Get("Retry-After") != notReadyRetrySeconds {
		t.Fatalf("a server not ready: %d Retry-After %q; want 503 Retry-After %s", a.status, a.header.Get("Retry-After"), notReadyRetrySeconds)
	}
	if a.err.Reason != string(RefusalNotReady) || a.err.Params["retryAfterSeconds"] != notReadyRetrySeconds || a.err.Params["readiness"] != "starting" {
		t.Fatalf("a server not ready: %s; want %s with readiness starting and retryAfterSeconds %s", a.raw, RefusalNotReady, notReadyRetrySeconds)
	}
}
