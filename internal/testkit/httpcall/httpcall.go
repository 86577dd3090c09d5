// Package httpcall sends one request as an API client or a worker does,
// with a bearer credential, and reads the whole answer, so every profile's
// HTTP tests share the same plumbing and say only what they send and check.
package httpcall

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
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

// Form sends form (nil: no body) to u with method through c, as a browser
// posts a console form, and returns the answer and its whole body. A
// request that cannot be sent fails the test.
func Form(t testing.TB, c *http.Client, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck // the body was read in full; a close error changes nothing
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
