package singlecli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `ql runs list` says how a failed Run ended in its ERROR column, "exit 3"
// for a command that exited with status 3, and keeps the columns a
// single-node server always had: it has no workers, so no WORKER column.
func TestRunsListSaysAFailedRunsExitStatusWithoutAWorkerColumn(t *testing.T) {
	t.Parallel()
	held := t.TempDir()
	dir, _ := serveDefs(t, exitStatusFile(filepath.Join(held, "release")))
	code, out, errOut := ql(t, "triggers", "run", "bad", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("triggers run bad: %d %q %q", code, out, errOut)
	}
	bad := runIDOf(t, out)
	if code, _, errOut := ql(t, "runs", "logs", "-f", bad, "--data-dir", dir); code != 0 {
		t.Fatalf("logs -f: %d %q", code, errOut)
	}
	code, out, errOut = ql(t, "runs", "list", "--data-dir", dir)
	header, _, _ := strings.Cut(out, "\n")
	if code != 0 || !regexp.MustCompile(`(?m)^`+bad+` +failed .* exit 3$`).MatchString(out) || strings.Contains(header, "WORKER") || !strings.HasSuffix(strings.TrimSpace(header), "ERROR") {
		t.Fatalf("runs list: %d %q %q; want the failed Run's row ending in exit 3, and ERROR the last column", code, out, errOut)
	}
}
