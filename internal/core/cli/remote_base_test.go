package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An --api-url that ends with the API's own path (/api/v1, or /api) is
// refused, exit 2, naming the base URL to give: each command adds
// /api/v1/… itself, and the server would answer "no such endpoint
// /api/v1/api/v1/…". A base under a proxy's path prefix is taken.
func TestAnAPIURLEndingWithTheAPIsPathIsRefusedNamingTheBaseURL(t *testing.T) {
	t.Setenv("QL_TOKEN", "qlt_any")
	for given, base := range map[string]string{
		"https://ql.example.com:8443/api/v1":  "https://ql.example.com:8443",
		"https://ql.example.com:8443/api/v1/": "https://ql.example.com:8443",
		"https://ql.example.com/ql/api/v1":    "https://ql.example.com/ql",
		"http://127.0.0.1:8080/api":           "http://127.0.0.1:8080",
	} {
		code, _, stderr := ql(t, "runs", "list", "--api-url", given)
		if code != 2 || !strings.Contains(stderr, "ends with the API's path") || !strings.Contains(stderr, "--api-url "+base+"\n") {
			t.Errorf("--api-url %s: exit %d %q; want exit 2 naming --api-url %s", given, code, stderr, base)
		}
	}
	if code, _, stderr := ql(t, "runs", "list", "--api-url", "https://127.0.0.1:1/ql"); strings.Contains(stderr, "ends with the API's path") || code == 2 {
		t.Errorf("a base under a path prefix: exit %d %q; want it asked", code, stderr)
	}
}

// A password written into --api-url (https://NAME:PASSWORD@host) is
// refused, exit 2, and never printed: the API reads only $QL_TOKEN, and
// the hints every command prints repeat --api-url into terminals and CI
// logs.
func TestAnAPIURLCarryingAPasswordIsRefusedWithoutEchoingIt(t *testing.T) {
	t.Setenv("QL_TOKEN", "qlt_any")
	for _, given := range []string{"http://u:SeCrEtPw@127.0.0.1:1", "https://SeCrEtPw@ql.example.com:8443/api/v1", "http://u:SeCrEtPw@ql.example.com"} {
		code, out, stderr := ql(t, "runs", "list", "--api-url", given)
		if code != 2 || !strings.Contains(stderr, "carries a user name or password") || strings.Contains(out+stderr, "SeCrEtPw") {
			t.Errorf("--api-url %s: exit %d %q; want exit 2 refusing the password without printing it", given, code, stderr)
		}
	}
}

// A token read from a mounted secret file keeps its trailing newline:
// the command sends the token without it. One holding a character no
// token has is refused, exit 2, naming $QL_TOKEN — never sent and failed
// as "cannot reach the server", the exit a script retries.
func TestATokenFromAFileWithItsNewlineIsSentAndOneWithAControlCharacterIsRefused(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"runs":[]}`))
	}))
	defer srv.Close()
	t.Setenv("QL_TOKEN", "qlt_fromafile\n")
	if code, _, stderr := ql(t, "runs", "list", "--api-url", srv.URL); code != 0 || len(got) == 0 || got[0] != "Bearer qlt_fromafile" {
		t.Errorf("a token with its newline: exit %d %q, sent %q; want exit 0 and Bearer qlt_fromafile", code, stderr, got)
	}
	got = nil
	t.Setenv("QL_TOKEN", "qlt_two\nlines")
	if code, _, stderr := ql(t, "runs", "list", "--api-url", srv.URL); code != 2 || !strings.Contains(stderr, "$QL_TOKEN holds a character no token has") || len(got) != 0 {
		t.Errorf("a token with a newline inside: exit %d %q, %d requests; want exit 2 naming $QL_TOKEN and none sent", code, stderr, len(got))
	}
}

// --api-url https://… given a server that serves plain HTTP (started with
// --insecure-http) is refused saying the server does not answer HTTPS,
// with the http:// URL to give instead.
func TestAnHTTPSURLToAPlainHTTPServerSuggestsHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"runs":[]}`))
	}))
	defer srv.Close()
	t.Setenv("QL_TOKEN", "qlt_plain")
	rest := strings.TrimPrefix(srv.URL, "http://")
	code, _, stderr := ql(t, "runs", "list", "--api-url", "https://"+rest)
	if want := "the server at https://" + rest + " does not answer HTTPS: if it serves plain HTTP (--insecure-http), give --api-url http://" + rest; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("--api-url https:// to a plain HTTP server: exit %d %q; want exit 1 and %q", code, stderr, want)
	}
}
