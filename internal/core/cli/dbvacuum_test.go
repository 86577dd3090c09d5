package cli

import (
	"context"
	"io"
	"strings"
	"testing"
)

// `ql db vacuum` given the cluster's PostgreSQL database compacts nothing
// and says why, as a usage error (exit 2: no retry vacuums it):
// PostgreSQL's autovacuum makes deleted rows' space reusable, and VACUUM
// FULL gives it back.
func TestDBVacuumOfAPostgreSQLDatabaseExitsTwoNamingAutovacuum(t *testing.T) {
	t.Parallel()
	full := Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil },
		Vacuum: func(context.Context, string, io.Writer) (int64, int64, error) {
			t.Error("a PostgreSQL database was vacuumed as an embedded one")
			return 0, 0, nil
		}}
	code, out, stderr := qlWith(t, full, "db", "vacuum", "--database-url", "postgres://ql_runtime@127.0.0.1:1/qinglong")
	if code != ExitUsage || out != "" || !strings.Contains(stderr, "its autovacuum makes the space of deleted rows reusable") || !strings.Contains(stderr, "VACUUM FULL") {
		t.Fatalf("db vacuum of a PostgreSQL database: exit %d %q %q; want exit 2 naming autovacuum and VACUUM FULL", code, out, stderr)
	}
}
