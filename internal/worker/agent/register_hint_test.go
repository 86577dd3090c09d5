package agent

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A --server with a path the ingress does not serve (the paths appended to
// it land outside /worker/v1/) answers 404 not_found from a live ingress:
// the hint says the path is wrong, not that the replica is not ready,
// which would have the operator wait for ever for a replica that is ready.
func TestAServerURLWithAWrongPathIsToldAsThePathNotAsAReplicaNotReady(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	// What a replica's ingress answers for a path it does not serve.
	ingress := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, workerproto.CodeNotFound, "no worker ingress path %s; the paths are under /worker/v1/", r.URL.Path)
	}))
	t.Cleanup(ingress.Close)
	w := runAgent(t, in, func(c *Config) {
		c.Server = ingress.URL + "/worker"
		// The try keeps its default bound: the hint tells what the
		// address answered, and a try cut short before the answer
		// comes (a bound of milliseconds on a loaded machine) is told
		// as no answer in time.
		c.registerRetry, c.registerRepeat = 20*time.Millisecond, time.Hour
	})
	waitFor(t, "a failed registration", func() bool { return strings.Contains(w.logs.String(), `"code":"register_failed"`) })
	for _, line := range strings.Split(w.logs.String(), "\n") {
		if strings.Contains(line, `"code":"register_failed"`) &&
			(!containsAll(line, "not at that path", "without a path") || strings.Contains(line, "not ready")) {
			t.Fatalf("the line does not say that the path of --server is wrong:\n%s", line)
		}
	}
}

// Every refusal a registration is retried on (the others end the worker)
// has a hint of its own; only a replica that is not ready is said to be
// not ready.
func TestEveryRegistrationRefusalTheWorkerRetriesHasItsOwnHint(t *testing.T) {
	t.Parallel()
	refusals := []*Error{
		{Status: http.StatusNotFound, Code: workerproto.CodeNotFound},
		{Status: http.StatusConflict, Code: workerproto.CodeFenced},
		{Status: http.StatusConflict, Code: workerproto.CodeSessionReplaced},
		{Status: http.StatusRequestEntityTooLarge, Code: workerproto.CodeTooLarge},
		{Status: http.StatusTooManyRequests, Code: workerproto.CodeRateLimited},
		{Status: http.StatusServiceUnavailable, Code: workerproto.CodeUnavailable},
		{Status: http.StatusServiceUnavailable, Code: workerproto.CodeReplicaStopping},
		{Status: http.StatusInternalServerError, Code: workerproto.CodeInternal},
		{Status: http.StatusTeapot, Code: "brewing"},
	}
	said := map[string]string{}
	for _, e := range refusals {
		hint := registerHint(e, time.Now())
		if strings.Contains(hint, "not ready") != (e.Code == workerproto.CodeUnavailable) {
			t.Errorf("%s: %q; only unavailable is a replica not ready", e.Code, hint)
		}
		if other, ok := said[hint]; ok && !(other == workerproto.CodeFenced && e.Code == workerproto.CodeSessionReplaced) {
			t.Errorf("%s and %s get the same hint %q", other, e.Code, hint)
		}
		said[hint] = e.Code
	}
	if hint := registerHint(&Error{Status: http.StatusTeapot, Code: "brewing"}, time.Now()); !containsAll(hint, "418", "brewing") {
		t.Errorf("an unknown refusal's hint %q does not name it", hint)
	}
}
