package crontab

import (
	"strings"
	"testing"
)

// The line a pull or download task fails with when the scripts folder is
// unset names no worker or cluster, converted for ql-edge or not, so that
// a Run on ql-edge says nothing of either.
func TestAPullTasksScriptsFolderGuardNamesNoWorker(t *testing.T) {
	t.Parallel()
	const list = "0 1 * * * ql repo https://example.com/o/s.git\n0 2 * * * ql raw https://example.com/a.js\n"
	for _, edge := range []bool{false, true} {
		res, err := Convert(strings.NewReader(list), Options{Zone: "UTC", Edge: edge})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 2 {
			t.Fatalf("edge %v: %d entries, want the pull and the download: %v", edge, len(res.Entries), res.Problems)
		}
		for _, e := range res.Entries {
			guard, _, _ := strings.Cut(strings.TrimPrefix(e.Script, "set -eu\n"), "\n")
			if !strings.Contains(guard, ScriptsDirVariable+":?") || strings.Contains(guard, "worker") || strings.Contains(guard, "cluster") {
				t.Errorf("edge %v: %s's guard %q: want the scripts folder checked, naming no worker or cluster", edge, e.Name, guard)
			}
		}
	}
}
