package repocheck

import (
	"strings"
	"testing"
)

// The worker binary runs on the machines that execute commands, which
// never hold database credentials: it links no PostgreSQL driver, no
// cluster code and no single-node code — of this module only the
// profile-neutral core and the worker's own packages. The whole closure is
// audited, so an import that drags a driver in through another package
// fails here.
func TestWorkerBinaryLinksNoDatabaseDriverNorServerCode(t *testing.T) {
	t.Parallel()
	linked := map[string]bool{}
	for _, p := range goList(t, "-deps", "./cmd/ql-worker") {
		rel, ours := local(p.ImportPath)
		switch {
		case p.Standard:
		case ours:
			linked[rel] = true
			if rel != "cmd/ql-worker" && !strings.HasPrefix(rel, "internal/core/") && !strings.HasPrefix(rel, "internal/worker/") {
				t.Errorf("the worker binary links %s; it may link only internal/core/... and internal/worker/... of this module: remove the import that pulls it in", rel)
			}
		case p.Module == nil:
			t.Errorf("the worker binary links %s, which belongs to no module", p.ImportPath)
		case strings.HasPrefix(p.Module.Path, "github.com/jackc/"):
			t.Errorf("the worker binary links %s from module %s: a PostgreSQL driver never belongs in a worker", p.ImportPath, p.Module.Path)
		}
	}
	for _, want := range []string{"internal/worker/agent", "internal/worker/journal", "internal/core/process", "internal/core/workerproto"} {
		if !linked[want] {
			t.Fatalf("go list did not report %s in the worker binary; the audit would prove nothing", want)
		}
	}
}
