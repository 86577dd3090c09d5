package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is two levels up from this package's directory.
const repoRoot = "../.."

// testFuncs maps "package: TestName" for every test function in internal/.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	found := map[string]bool{}
	// The binaries' own tests (cmd/ql-edge, …) are cited by their folder's
	// name as the packages' are.
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pkg := filepath.Base(filepath.Dir(path))
			for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
				found[pkg+": "+m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return found
}

// TestGuaranteesNameTestsThatExist keeps docs/guarantees.md honest: a test
// it cites as proof that was renamed or deleted fails here, so the page can
// never claim a guarantee nothing checks.
func TestGuaranteesNameTestsThatExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "guarantees.md"))
	if err != nil {
		t.Fatal(err)
	}
	have := testFuncs(t)
	cited := regexp.MustCompile("`([\\w-]+): (Test\\w+)`").FindAllStringSubmatch(string(doc), -1)
	if len(cited) < 20 {
		t.Fatalf("docs/guarantees.md cites only %d tests as `package: TestName`; the format may have changed", len(cited))
	}
	for _, c := range cited {
		if !have[c[1]+": "+c[2]] {
			t.Errorf("docs/guarantees.md cites %s: %s, which does not exist in internal/…/%s or cmd/%s", c[1], c[2], c[1], c[1])
		}
	}
}
