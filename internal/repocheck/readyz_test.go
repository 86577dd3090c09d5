package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readyzReasons are the reasons a readiness function in file answers 503
// with: the string literals and the metrics.State constants it returns.
func readyzReasons(t *testing.T, file, fn string) []string {
	t.Helper()
	src := readRepoFile(t, file)
	start := strings.Index(src, "\n"+fn+" {\n")
	if start < 0 {
		t.Fatalf("%s: no %s", file, fn)
	}
	body := src[start:]
	body = body[:strings.Index(body, "\n}\n")]
	states := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(State\w+)\s*=\s*"(\w+)"`).FindAllStringSubmatch(readRepoFile(t, "internal/core/metrics/metrics.go"), -1) {
		states[m[1]] = m[2]
	}
	consts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(Reason\w+)\s*=\s*"(\w+)"`).FindAllStringSubmatch(src, -1) {
		consts[m[1]] = m[2]
	}
	var reasons []string
	for _, m := range regexp.MustCompile(`return false, (?:"(\w+)"|metrics\.(State\w+)|(Reason\w+))`).FindAllStringSubmatch(body, -1) {
		switch {
		case m[1] != "":
			reasons = append(reasons, m[1])
		case m[2] != "":
			reasons = append(reasons, states[m[2]])
		default:
			reasons = append(reasons, consts[m[3]])
		}
	}
	slices.Sort(reasons)
	return slices.Compact(reasons)
}

func readRepoFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The /readyz table of docs/operations.md lists, for each profile, exactly
// the reasons its readiness function answers 503 with: an SRE's alert or
// runbook keyed on a reason the table lacks, or on one no server says,
// would never match.
func TestTheReadyzTableListsEveryReasonEachProfileAnswers(t *testing.T) {
	t.Parallel()
	ops := readRepoFile(t, "docs/operations.md")
	start := strings.Index(ops, "### `/readyz` and `/livez`")
	if start < 0 {
		t.Fatal("docs/operations.md: no section ### `/readyz` and `/livez`")
	}
	section := ops[start+1:]
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	documented := map[string][]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| ([a-z, ]+) \\| `(\\w+)` \\|").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = append(documented[m[1]], m[2])
	}
	for profile, code := range map[string][]string{
		"standalone, edge": readyzReasons(t, "internal/single/server/health.go", "func (s *Server) readiness() (bool, string)"),
		"cluster replica":  readyzReasons(t, "internal/cluster/replica/admission.go", "func (a *admission) ready() (bool, string)"),
	} {
		if len(code) == 0 {
			t.Errorf("%s: found no reason in its readiness function; has it moved?", profile)
		}
		doc := documented[profile]
		slices.Sort(doc)
		if !slices.Equal(doc, code) {
			t.Errorf("docs/operations.md's /readyz table lists %v for %s; the code answers %v", doc, profile, code)
		}
	}
	if len(documented) != 2 {
		t.Errorf("the /readyz table has rows for %d profiles %v; want standalone, edge and cluster replica", len(documented), documented)
	}
}
