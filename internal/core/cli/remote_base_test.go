package cli

import (
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
