package httpapi

import (
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// Whether a route is served while the server is not ready is its route
// table entry's rule, not its path's: a route marked evenUnready at any
// path is served to its token, a route marked whenReady is refused 503
// even at /metrics, and a wrong method of the first is answered 405, as
// while ready.
func TestARoutesReadinessRuleIsItsTableEntrysNotItsPath(t *testing.T) {
	t.Parallel()
	served := 0
	ok := func(a *api) http.HandlerFunc { return func(http.ResponseWriter, *http.Request) { served++ } }
	h, tokens := notReadyHandler(t, Config{}, []route{
		{http.MethodGet, "/api/v1/always", apitoken.Read, everyProject, evenUnready, checkedOnly, unconditional, "read always", ok},
		{http.MethodGet, metricsPath, apitoken.Read, everyProject, whenReady, lastKnown, unconditional, "read the metrics", ok},
	})
	if p := send(t, h, "GET", "/api/v1/always", "localhost", tokens[apitoken.Read], ""); p.status != 200 || served != 1 {
		t.Errorf("a route marked evenUnready on a server not ready: %d %s %q; want it served", p.status, p.code, p.message)
	}
	if p := send(t, h, "POST", "/api/v1/always", "localhost", tokens[apitoken.Read], ""); p.status != 405 {
		t.Errorf("a wrong method of a route marked evenUnready on a server not ready: %d %s; want 405", p.status, p.code)
	}
	if p := send(t, h, "GET", metricsPath, "localhost", tokens[apitoken.Read], ""); p.status != 503 || p.code != "unavailable" || served != 1 {
		t.Errorf("/metrics marked whenReady on a server not ready: %d %s; want 503 unavailable, whatever its path", p.status, p.code)
	}
	if p := send(t, h, "GET", "/api/v1/always", "localhost", "", ""); p.status != 401 {
		t.Errorf("a route marked evenUnready without a token: %d %s; want 401: the rule spares readiness, not the token", p.status, p.code)
	}
}
