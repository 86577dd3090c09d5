package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command that writes, given a data directory whose database file is
// empty (a restore or a copy cut short), says it made a new, empty
// database in it and to restore a backup if data was expected there —
// never that it migrated an older build's database.
func TestACommandOnAnEmptyDatabaseFileSaysItHeldNoDatabase(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qinglong.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	defs := writeFile(t, t.TempDir(), "defs.yaml", "project: demo\ntasks:\n  - name: hello\n    script: echo hi\n")
	code, _, errOut := ql(t, "apply", "-f", defs, "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, "held no QingLong database (it was empty)") || !strings.Contains(errOut, "restore it from a backup") ||
		strings.Contains(errOut, "older builds no longer open it") {
		t.Fatalf("apply on an empty database file: exit %d %q; want it applied, the empty file said so", code, errOut)
	}
}
