package singlecli

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A command that writes, given a data directory whose database file is
// empty (a restore or a copy cut short), says it made a new, empty
// database in it and to restore a backup if data was expected there —
// never that it migrated an older build's database.
func TestACommandOnAnEmptyDatabaseFileSaysItHeldNoDatabase(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.EmptyFileDataDir(t)
	defs := writeFile(t, t.TempDir(), "defs.yaml", "project: demo\ntasks:\n  - name: hello\n    script: echo hi\n")
	code, _, errOut := ql(t, "apply", "-f", defs, "--data-dir", dir)
	if code != 0 || !strings.Contains(errOut, "held no QingLong database (it was empty)") || !strings.Contains(errOut, "restore it from a backup") ||
		strings.Contains(errOut, "older builds no longer open it") {
		t.Fatalf("apply on an empty database file: exit %d %q; want it applied, the empty file said so", code, errOut)
	}
}
