package repocheck

import (
	"slices"
	"testing"
)

// testSupport are the packages that exist for tests only: the conformance
// suite, the private PostgreSQL, the cluster test environment, the fault
// gates, the goroutine leak check and the bearer-token HTTP call. Their non-test files are still
// ordinary Go code a binary could import by mistake.
var testSupport = []string{
	"internal/testkit/clustertest",
	"internal/testkit/faults",
	"internal/testkit/httpcall",
	"internal/testkit/leakcheck",
	"internal/testkit/pgtest",
	"internal/testkit/storetest",
}

// No package outside test support imports one, directly or through
// another package: only _test.go files may, so a test harness can never
// ship in a binary.
func TestNonTestCodeImportsNoTestSupport(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range goList(t, "./...") {
		rel, _ := local(p.ImportPath)
		seen[rel] = true
		if slices.Contains(testSupport, rel) {
			continue
		}
		for _, d := range p.Deps {
			if dep, ours := local(d); ours && slices.Contains(testSupport, dep) {
				t.Errorf("%s imports the test-support package %s (directly or through another package) from a non-test file; import it from _test.go files only", rel, dep)
			}
		}
	}
	for _, rel := range testSupport {
		if !seen[rel] {
			t.Errorf("testSupport lists %s, which go list did not report; the check would miss its renamed successor", rel)
		}
	}
}
