package workeringress

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A request without a worker credential is told what one looks like:
// its prefix survives the redaction of credentials, which hides every
// piece of one but not the prefix alone.
func TestTheMissingCredentialHintShowsTheCredentialsPrefix(t *testing.T) {
	t.Parallel()
	h := New(Config{Log: slog.New(slog.DiscardHandler)})
	req := httptest.NewRequest(http.MethodPost, workerproto.PathHeartbeat, strings.NewReader(`{}`))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	e := errorOf(t, rec.Body.Bytes())
	if rec.Code != http.StatusUnauthorized || strings.Contains(e.Message, "[redacted]") || !strings.Contains(e.Message, "Bearer "+workerproto.CredentialPrefix+"…") {
		t.Fatalf("no credential: %d %q; want 401 naming the %s… it should send, nothing redacted", rec.Code, e.Message, workerproto.CredentialPrefix)
	}
	if got := redact("credential " + workerproto.CredentialPrefix + "abc-DEF_9 refused"); strings.Contains(got, "abc") {
		t.Fatalf("a piece of a credential is no longer redacted: %q", got)
	}
}

// A path with a dot or empty segment is the ingress's 404 for a path it
// does not serve, never a redirect to its cleaned form.
func TestADotSegmentPathOnTheIngressIsItsUnknownPath(t *testing.T) {
	t.Parallel()
	h := New(Config{Log: slog.New(slog.DiscardHandler)})
	for _, path := range []string{"/worker/v1/../v1/heartbeat", "/worker/v1/./heartbeat", "/worker//v1/heartbeat"} {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound || rec.Header().Get("Location") != "" || errorOf(t, rec.Body.Bytes()).Code != workerproto.CodeNotFound {
			t.Errorf("POST %s: %d to %q %s, want the ingress's 404", path, rec.Code, rec.Header().Get("Location"), rec.Body.String())
		}
	}
}
