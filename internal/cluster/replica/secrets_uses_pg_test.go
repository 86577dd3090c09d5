package replica

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// `ql secrets list --secrets-file FILE` reads which tasks use each name
// from the database in $QL_DATABASE_URL, as with --database-url: a URL
// holding a password can be given only there, so the uses of a worker's
// file are listed where the operator's environment names the database,
// and a name the tasks use that the file lacks shows as missing.
func TestSecretsListOfAFileReadsTheUsesFromTheDatabaseInTheEnvironment(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, `
project: vault
tasks:
  - name: call
    command: ["/bin/true"]
    env:
      API_TOKEN: {secret: api-token}
      DB_PASS: {secret: db-pass}
`)
	file := filepath.Join(t.TempDir(), "worker-secrets.json")
	if err := os.WriteFile(file, []byte(`{"api-token": "value-of-the-token"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}, "secrets", "list", "--secrets-file", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || strings.Contains(out, "not known") ||
		!strings.Contains(lines[1], "api-token") || !strings.Contains(lines[1], "yes") || !strings.Contains(lines[1], "vault/call (env API_TOKEN)") ||
		!strings.Contains(lines[2], "db-pass") || !strings.Contains(lines[2], "missing") || !strings.Contains(lines[2], "vault/call (env DB_PASS)") {
		t.Fatalf("secrets list --secrets-file with the database in $QL_DATABASE_URL: exit %d\n%s\nwant both names with their uses, db-pass missing", code, out)
	}
	if strings.Contains(out, "value-of-the-token") {
		t.Fatalf("the listing holds a value: %q", out)
	}
}
