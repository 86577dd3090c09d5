package httpapi

import (
	"testing"
)

// A client without a valid token learns nothing of which paths and methods
// are routes: a path no route serves and a route's other method are the
// same 401 as a route asked rightly, and only a token's holder is told
// 404 or 405. The probes stay public.
func TestTheRoutesCannotBeMappedWithoutAToken(t *testing.T) {
	t.Parallel()
	h, tok := reasonsServer(t, Limits{FailedAuthBurst: 1000}, true)
	asked := []refusal{
		{name: "a route", method: "GET", target: "/api/v1/runs"},
		{name: "no such path", method: "GET", target: "/api/v1/nope"},
		{name: "no such version", method: "GET", target: "/api/v2/runs"},
		{name: "another method", method: "DELETE", target: "/api/v1/runs"},
		{name: "another method of metrics", method: "POST", target: "/metrics"},
	}
	for _, rf := range asked {
		for _, token := range []string{"", tok["unknown"]} {
			rf.token = token
			status, a, hd := ask(t, h, rf)
			if status != 401 || hd.Get("Allow") != "" || hd.Get("WWW-Authenticate") == "" {
				t.Errorf("%s with token %q: %d reason %q Allow %q; want 401 without Allow", rf.name, token, status, a.Error.Reason, hd.Get("Allow"))
			}
		}
	}
	for _, rf := range []refusal{
		{name: "no such path", method: "GET", target: "/api/v1/nope", token: tok["read"], status: 404, reason: RefusalNoSuchEndpoint},
		{name: "another method", method: "DELETE", target: "/api/v1/runs", token: tok["read"], status: 405, reason: RefusalMethodNotAllowed},
		{name: "a probe's other method", method: "POST", target: "/livez", status: 405, reason: RefusalMethodNotAllowed},
	} {
		if status, a, _ := ask(t, h, rf); status != rf.status || a.Error.Reason != rf.reason {
			t.Errorf("%s: %d reason %q; want %d %q", rf.name, status, a.Error.Reason, rf.status, rf.reason)
		}
	}
	if status, _, _ := ask(t, h, refusal{method: "GET", target: "/livez"}); status != 200 {
		t.Errorf("GET /livez without a token: %d; want 200", status)
	}
}
