package pgstore

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateFingerprint = flag.Bool("update-fingerprint", false, "rewrite schema_fingerprint.txt from a freshly migrated database")

func TestSchemaFingerprintMatchesMigrations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.conn(t, RoleRuntime)
	if _, err := c.Exec(t.Context(), "SET search_path TO pg_catalog"); err != nil {
		t.Fatal(err)
	}
	got, err := fingerprint(t.Context(), c, sqlSchemaFingerprint)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(got, "\n") + "\n"
	if *updateFingerprint {
		if err := os.WriteFile("schema_fingerprint.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := diffLines(expectedSchemaLines(), got); d != "" {
		t.Fatalf("schema_fingerprint.txt is stale (rerun with -update-fingerprint): %s", d)
	}
}
