package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// A server given no way to read logs answers the log route with what to
// do instead, never an empty log or an internal error.
func TestTheLogRouteOfAServerThatCannotReadLogsSaysWhereToReadThem(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, fakeReaders{})
	r := hs.do(t, http.MethodGet, "/api/v1/runs/"+someID+"/log")
	if r.status != http.StatusConflict || errorCode(r) != "failed_precondition" || !strings.Contains(r.raw, "read it with `ql runs logs` where its database is") {
		t.Fatalf("GET the log: %d %s; want 409 failed_precondition saying where to read it", r.status, r.raw)
	}
}
