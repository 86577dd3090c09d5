package replica

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// `ql retention run` on the cluster says what is true of the space its
// pass frees: PostgreSQL gives nothing back to the file system by a
// delete, so the summary says the space is reused, never "0 B given back".
func TestARetentionPassOnTheClusterSaysPostgreSQLReusesTheSpace(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	code, out := runQL(t, bin, []string{"QL_DATABASE_MAINTENANCE_URL=" + env.URL(pgstore.RoleMaintenance)}, "retention", "run")
	if code != 0 || !strings.Contains(out, "PostgreSQL reuses the space of the deleted rows once autovacuum has run; none is given back to the file system") ||
		strings.Contains(out, "B given back") {
		t.Fatalf("ql retention run on the cluster: exit %d %q; want its summary to say PostgreSQL reuses the space", code, out)
	}
}
