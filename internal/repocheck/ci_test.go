package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeTestCommand is the README's second command on a fresh machine:
// the line of its first sh block whose comment says it runs the tests.
var readmeTestCommand = regexp.MustCompile("(?m)^(go test [^#\n]*?)\\s+# test: ")

// TestCIRunsTheREADMEsTestCommandExactly: .ci/run runs the test command
// the README gives, character for character, so a change to how the
// suite runs (its race detector flags, its timeout) is made in both or
// fails here.
func TestCIRunsTheREADMEsTestCommandExactly(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeTestCommand.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no line `go test … # test: …` among its first commands")
	}
	command := string(m[1])
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for line := range strings.SplitSeq(string(ci), "\n") {
		if strings.Contains(line, "go test") && strings.Contains(line, "./...") {
			runs = append(runs, strings.TrimSpace(line))
		}
	}
	if len(runs) != 1 || !strings.Contains(runs[0], " "+command+" 2>&1") {
		t.Fatalf(".ci/run's run of the whole suite is %q; want exactly one, running the README's test command %q", runs, command)
	}
}
