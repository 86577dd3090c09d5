package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideRefs are pointers to design files that are not part of the
// repository: a reader of the code could not follow them. They are looked
// for as plain strings, whose search is not instrumented by the race
// detector: a regular expression over every line of the repository took
// most of a minute of CI's time under it.
var outsideRefs = []string{"../shared", "shared/design", "shared/seed", "SPEC §", "ADR-0105"}

// pointsOutside reports whether text holds one of outsideRefs.
func pointsOutside(text string) bool {
	for _, ref := range outsideRefs {
		if strings.Contains(text, ref) {
			return true
		}
	}
	return false
}

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
		if !pointsOutside(string(src)) || strings.HasSuffix(path, "refs_test.go") {
			return nil
		}
		for i, line := range strings.Split(string(src), "\n") {
			if pointsOutside(line) {
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
