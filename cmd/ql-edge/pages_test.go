package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/examples"
)

// TestAQlEdgeApplyBeforeTheFirstServeMakesTheDatabaseWithTheEdgesPages: a
// router owner who applies a definitions file before starting the server
// gets the database the edge server would have made, with 1 KiB pages.
func TestAQlEdgeApplyBeforeTheFirstServeMakesTheDatabaseWithTheEdgesPages(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "sample.yaml")
	if err := os.WriteFile(file, examples.Sample, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlEdge(t, "apply", "-f", file, "--data-dir", dir); code != 0 {
		t.Fatalf("apply exited %d: %s", code, stderr)
	}
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "qinglong.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var got int
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&got); err != nil || got != 1024 {
		t.Fatalf("the database ql-edge apply made has %d-byte pages (%v), want 1024", got, err)
	}
}
