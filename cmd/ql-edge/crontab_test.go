package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The file `ql-edge crontab convert` writes starts with a header true of
// ql-edge: its default concurrency is 1, not the machine's CPU count, and
// the command reading a Run's log is ql-edge's; nothing in it names ql or
// the cluster.
func TestTheFileQlEdgeConvertsSaysItsOwnConcurrencyAndLogCommand(t *testing.T) {
	t.Parallel()
	tab := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(tab, []byte("0 3 * * * /opt/backup.sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"crontab", "convert", tab, "--project", "ops", "--tz", "UTC"}
	code, out, stderr := qlEdge(t, args...)
	if code != 0 {
		t.Fatalf("ql-edge %s: exit %d %q", strings.Join(args, " "), code, stderr)
	}
	for _, want := range []string{"at most --concurrency commands run at once (by default 1)", "(ql-edge runs logs)"} {
		if !strings.Contains(out, want) {
			t.Errorf("ql-edge crontab convert printed:\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, "CPU count") {
		t.Errorf("ql-edge crontab convert printed:\n%s\nwant no CPU count: ql-edge runs one command at a time by default", out)
	}
	showsNothingOfTheCluster(t, args, out, clusterWords)
}
