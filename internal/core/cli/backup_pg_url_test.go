package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `ql backup` given a PostgreSQL database copies nothing, and says so as a
// usage error (exit 2: no retry copies it), with the pg_dump command that
// backs it up and the docs section that exists, "Backup and restore".
func TestBackupOfAPostgreSQLDatabaseExitsTwoWithThePgDumpCommand(t *testing.T) {
	t.Parallel()
	full := Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil }}
	dir := filepath.Join(t.TempDir(), "copy")
	code, out, stderr := qlWith(t, full, "backup", dir, "--database-url", "postgres://ql_runtime@127.0.0.1:1/qinglong")
	if code != ExitUsage || out != "" ||
		!strings.Contains(stderr, "`pg_dump --format=custom --schema=qinglong --file=qinglong.dump \"$SUPERUSER_URL\"`") ||
		!strings.Contains(stderr, `docs/operations.md, "Backup and restore"`) {
		t.Fatalf("backup of a PostgreSQL database: exit %d %q %q; want exit 2 naming the pg_dump command and the section", code, out, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the refused backup made %s: %v", dir, err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "\n## Backup and restore\n") || !strings.Contains(string(doc), "pg_dump --format=custom --schema=qinglong --file=qinglong.dump \"$SUPERUSER_URL\"") {
		t.Fatal("docs/operations.md has no section \"Backup and restore\" giving the pg_dump command the refusal names")
	}
}
