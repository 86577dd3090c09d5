package repocheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archived maps modules whose upstream stopped maintaining them to the
// maintained successor to use instead.
var archived = map[string]string{
	"gopkg.in/yaml.v3": "go.yaml.in/yaml/v3",
}

// TestNoArchivedModuleIsRequired keeps unmaintained modules out of go.mod,
// directly or indirectly: they get no security fixes.
func TestNoArchivedModuleIsRequired(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "github.com/jackc/pgx/v5 ") {
		t.Fatal("go.mod does not look like this module's (no pgx requirement)")
	}
	for _, line := range strings.Split(string(mod), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		name := fields[0]
		if name == "require" && len(fields) > 1 {
			name = fields[1]
		}
		if successor, ok := archived[name]; ok {
			t.Errorf("go.mod requires %s, which is archived; use %s", name, successor)
		}
	}
}
