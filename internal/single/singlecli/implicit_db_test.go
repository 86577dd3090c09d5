package singlecli

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// ql apply creates the embedded database where none was chosen only when
// nothing says the cluster was meant, and says it did:
// with the cluster admin role's URL set it refuses and writes nothing.
func TestAWriteCreatesAnEmbeddedDatabaseOnlyOnPurposeAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_DATABASE_ADMIN_URL", "postgres://ql_admin@db.example:5432/qinglong")
	defs := writeFile(t, t.TempDir(), "defs.yaml", goodFile)
	code, _, errOut := ql(t, "apply", "-f", defs)
	// This build has no --database-url: the full binary reads the cluster.
	if code == 0 || !strings.Contains(errOut, "$QL_DATABASE_ADMIN_URL is set") || !strings.Contains(errOut, "use the full ql binary") {
		t.Fatalf("apply with the admin URL set: %d %q, want a refusal naming the variable and what to give", code, errOut)
	}
	if _, err := os.Stat("qinglong.db"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the refused command left a database behind: %v", err)
	}
	t.Setenv("QL_DATABASE_ADMIN_URL", "")
	code, _, errOut = ql(t, "apply", "-f", defs)
	if code != 0 || !strings.Contains(errOut, "created the embedded database qinglong.db (no --data-dir") || strings.Contains(errOut, "database-url") {
		t.Fatalf("apply with nothing set: %d %q, want the database created and said so, naming only what this build has", code, errOut)
	}
	code, _, errOut = ql(t, "tokens", "create", "cd", "--scope", "read")
	if code != 0 || strings.Contains(errOut, "created the embedded database") {
		t.Fatalf("tokens create on the database apply made: %d %q, want no creation notice", code, errOut)
	}
}

// A dry run previews the apply: given no database while the cluster admin
// role's URL is set, it is refused as the apply is, rather than planning
// against no database and showing every object as new; with --data-dir it
// still validates a file on its own.
func TestADryRunGivenNoDatabaseWhileTheAdminURLIsSetIsRefusedAsTheApplyIs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_DATABASE_ADMIN_URL", "postgres://ql_admin@db.example:5432/qinglong")
	defs := writeFile(t, t.TempDir(), "defs.yaml", goodFile)
	code, out, errOut := ql(t, "apply", "--dry-run", "-f", defs)
	if code != 2 || !strings.Contains(errOut, "$QL_DATABASE_ADMIN_URL is set") || strings.Contains(out, "would create") {
		t.Fatalf("apply --dry-run with the admin URL set: exit %d, stdout %q, stderr %q; want exit 2 naming the variable, no plan", code, out, errOut)
	}
	code, out, errOut = ql(t, "apply", "--dry-run", "--data-dir", t.TempDir(), "-f", defs)
	if code != 0 || !strings.Contains(out, "dry run, nothing written") {
		t.Fatalf("apply --dry-run --data-dir with the admin URL set: exit %d %q %q, want the file validated", code, out, errOut)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("the dry runs left %v in the working directory (%v), want nothing", entries, err)
	}
}
