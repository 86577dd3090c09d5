package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/freeport"
)

// The OpenAPI description a ql-edge server answers names ql-edge for
// every command its texts name (a token's, an apply's, the data
// directory's reads named in its answer fields' descriptions), never ql,
// and nothing of the cluster, in its words as in its names: no field only
// the cluster gives (a Run's worker, a replica's hold on a trigger), no
// parameter naming a worker, no description of replicas, workers,
// PostgreSQL or database roles.
func TestTheOpenAPIDocumentOfQlEdgeNamesOnlyQlEdgeCommandsAndNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	opts := options()
	dir := t.TempDir()
	defs := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(defs, []byte("project: demo\ntasks:\n  - {name: hello, script: echo hello}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runOK(t, opts, "apply", "-f", defs, "--data-dir", dir)
	reader := strings.TrimSpace(runOK(t, opts, "tokens", "create", "reader", "--scope", "read", "--data-dir", dir))
	addr := freeport.Addr(t)
	var doc any
	ready := func(string) bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/openapi.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+reader)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(b, &doc) != nil {
			t.Fatalf("GET /api/v1/openapi.json: %d %s %v", resp.StatusCode, b, err)
		}
		return true
	}
	serveWith(t, opts, "the API's description", ready, "--data-dir", dir, "--http-addr", addr, "--log-level", "warn")
	// Its texts, and its names: a field's, a parameter's, a schema's.
	var texts, names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				names = append(names, k)
				walk(x)
			}
		}
	}
	walk(doc)
	showsNothingOfTheCluster(t, []string{"serve:", "/api/v1/openapi.json"}, strings.Join(append(texts, names...), "\n"), clusterWords)
	// A replica's hold on a trigger's schedule row, which no cluster word
	// names.
	for _, name := range names {
		if strings.HasPrefix(name, "claim") {
			t.Errorf("ql-edge's OpenAPI document describes %s, which only the cluster answers", name)
		}
	}
	named := 0
	for _, s := range texts {
		if otherBinary.MatchString(s) {
			t.Errorf("ql-edge's OpenAPI document names ql in %q", s)
		}
		if strings.Contains(s, "ql-edge ") {
			named++
		}
	}
	// The token scheme's, the apply's body and the fields read from the
	// data directory name their commands.
	if named < 5 {
		t.Errorf("ql-edge's OpenAPI document names a ql-edge command in %d of its texts, want at least 5: its commands were dropped, not renamed", named)
	}
}
