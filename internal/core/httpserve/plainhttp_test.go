package httpserve

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// A plain-HTTP request to a TLS listener is answered 400 in JSON with its
// reason, saying to use https://, not in Go's plain text; the sentence Go
// answers opens the message still, for a client that recognises it. A TLS
// client on the same listener is served as ever.
func TestAPlainHTTPRequestToTheTLSListenerIsAnsweredInJSONSayingToUseHTTPS(t *testing.T) {
	t.Parallel()
	serverTLS, roots := tlstest.Pair(t)
	s, err := ListenWith("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "served")
	}), Options{TLS: serverTLS})
	if err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the server", 10*time.Second, s.Shutdown)
	for _, method := range []string{"GET", "POST"} {
		req, err := http.NewRequestWithContext(t.Context(), method, "http://"+s.Addr()+"/api/v1/runs", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s over plain HTTP: %v", method, err)
		}
		var body struct {
			Error struct{ Code, Message, Reason string }
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" || body.Error.Reason != RefusalPlainHTTP ||
			!strings.HasPrefix(body.Error.Message, "Client sent an HTTP request to an HTTPS server") || !strings.Contains(body.Error.Message, "https://") {
			t.Errorf("%s over plain HTTP: %d %q %+v (%v); want 400 JSON %s saying to use https://", method, resp.StatusCode, resp.Header.Get("Content-Type"), body, err, RefusalPlainHTTP)
		}
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://" + s.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "served" {
		t.Errorf("over TLS: %d %q; want served", resp.StatusCode, got)
	}
}
