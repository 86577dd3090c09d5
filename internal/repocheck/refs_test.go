package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideRef matches a pointer to design files that are not part of the
// repository: a reader of the code could not follow it.
var outsideRef = regexp.MustCompile(`\.\./shared|shared/design|shared/seed|SPEC §|ADR-0105`)

// TestNoReferenceLeavesTheRepository keeps the repository self-explaining:
// code comments, SQL and docs point at docs/, never at files outside it.
func TestNoReferenceLeavesTheRepository(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sql", ".yaml", ".yml":
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(src), "\n") {
			if outsideRef.MatchString(line) && !strings.HasSuffix(path, "refs_test.go") {
				t.Errorf("%s:%d points outside the repository: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files; the walk did not see the repository", checked)
	}
}
