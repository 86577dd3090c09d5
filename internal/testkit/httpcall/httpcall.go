// Package httpcall sends one request as an API client or a worker does,
// with a bearer credential, and reads the whole answer, so every profile's
// HTTP tests share the same plumbing and say only what they send and check.
package httpcall

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// Bearer sends body to url with method and token as its bearer credential
// ("" sends no Authorization header) and returns the answer's status, whole
// body and header. A request that cannot be sent or read fails the test.
func Bearer(t testing.TB, method, url, token string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close() //nolint:errcheck // the body was read in full; a close error changes nothing
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return resp.StatusCode, out, resp.Header
}
