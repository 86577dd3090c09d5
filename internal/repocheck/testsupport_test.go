package repocheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testSupportRoot holds the packages that exist for tests only: the
// conformance suites, the private PostgreSQL, the cluster test
// environment, the fault gates, the browser, the process starters and
// the small shared helpers. Their non-test files are still ordinary Go
// code a binary could import by mistake. Every package under it is test
// support, so a new one is covered without being listed.
const testSupportRoot = "internal/testkit/"

func isTestSupport(rel string) bool { return strings.HasPrefix(rel, testSupportRoot) }

// No package outside test support imports one, directly or through
// another package: only _test.go files may, so a test harness can never
// ship in a binary.
func TestNonTestCodeImportsNoTestSupport(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range goList(t, "./...") {
		rel, _ := local(p.ImportPath)
		seen[rel] = true
		if isTestSupport(rel) {
			continue
		}
		for _, d := range p.Deps {
			if dep, ours := local(d); ours && isTestSupport(dep) {
				t.Errorf("%s imports the test-support package %s (directly or through another package) from a non-test file; import it from _test.go files only", rel, dep)
			}
		}
	}
	// Every directory of Go code under the root is a package go list
	// reported, so none escapes the check.
	dirs, err := os.ReadDir(filepath.Join(repoRoot, testSupportRoot))
	if err != nil {
		t.Fatal(err)
	}
	packages := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(repoRoot, testSupportRoot, d.Name(), "*.go"))
		if !d.IsDir() || len(files) == 0 {
			continue
		}
		packages++
		if rel := testSupportRoot + d.Name(); !seen[rel] {
			t.Errorf("%s holds Go files but go list did not report it as a package; the check would miss it", rel)
		}
	}
	if packages == 0 {
		t.Errorf("no package found under %s; the check would check nothing", testSupportRoot)
	}
}
