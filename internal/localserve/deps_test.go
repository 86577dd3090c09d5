package localserve

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The edge binary must not link PostgreSQL code, row leases or the cluster
// lifecycle (docs/architecture.md, "Profiles"): its whole dependency closure is audited.
func TestEdgeBinaryLinksNoPostgresOrClusterCode(t *testing.T) {
	t.Parallel()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/ql-edge")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/ql-edge: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "github.com/qinglong/qinglong/internal/localserve") {
		t.Fatalf("go list returned %d packages without localserve; the audit would prove nothing", len(deps))
	}
	forbidden := []string{
		"github.com/jackc/",
		"github.com/lib/pq",
		"github.com/qinglong/qinglong/internal/pgstore",
		"github.com/qinglong/qinglong/internal/coordinator",
		"github.com/qinglong/qinglong/internal/clustercli",
		"github.com/qinglong/qinglong/internal/clusterserve",
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(d, f) {
				t.Errorf("the edge binary depends on %s", d)
			}
		}
	}
}
