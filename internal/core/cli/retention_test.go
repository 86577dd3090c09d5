package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// The config file names the retention settings as flags or as one
// retention section; a setting given both ways is refused, and a key of
// the section it does not take is named as written.
func TestTheConfigFileTakesARetentionSection(t *testing.T) {
	t.Parallel()
	var got retention.Settings
	opts := Options{Binary: "ql", Profiles: map[string]Profile{ProfileStandalone: {Serve: func(_ context.Context, _ *cobra.Command, f *ServeFlags) error {
		got = f.Retention
		return nil
	}}}}
	dir := t.TempDir()
	section := filepath.Join(dir, "section.yaml")
	if err := os.WriteFile(section, []byte("retention:\n  runs: 14d\n  log-bytes: 2GiB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWith(t, opts, "serve", "--config", section, "--retention-logs", "off"); code != 0 {
		t.Fatalf("serve with a retention section: exit %d: %s", code, stderr)
	}
	if want := (retention.Settings{Runs: "14d", Logs: "off", LogBytes: "2GiB"}); got != want {
		t.Fatalf("settings %+v, want %+v", got, want)
	}
	twice := filepath.Join(dir, "twice.yaml")
	if err := os.WriteFile(twice, []byte("retention-runs: 3d\nretention: {runs: 14d}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := qlWith(t, opts, "serve", "--config", twice)
	if code != 2 || !strings.Contains(stderr, "retention-runs is set twice") {
		t.Fatalf("a setting given twice: exit %d, %q; want exit 2 naming it", code, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("retention: 30d\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWith(t, opts, "serve", "--config", bad); code != 2 || !strings.Contains(stderr, "retention must be a mapping") {
		t.Fatalf("a retention section that is no mapping: exit %d, %q", code, stderr)
	}
	misspelt := filepath.Join(dir, "misspelt.yaml")
	if err := os.WriteFile(misspelt, []byte("retention: {runz: 5d}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWith(t, opts, "serve", "--config", misspelt); code != 2 || !strings.Contains(stderr, "unknown setting retention.runz") || strings.Contains(stderr, "retention-runz") {
		t.Fatalf("a misspelt key of the section: exit %d, %q; want it named as written", code, stderr)
	}
}

// A pass an error ended never reads as done: its summary says it stopped
// and what it deleted before (or that it deleted nothing), and a pass
// that could not remove some logs says it is incomplete.
func TestTheSummaryOfAPassThatFailedNeverSaysDone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		rep      retention.Report
		err      error
		postgres bool
		want     string
	}{
		{"failed at once", retention.Report{ByKind: map[retention.Kind]retention.Deleted{}}, errors.New("disk I/O error"), false,
			"stopped after 0s by the error below, having deleted nothing\n"},
		{"failed after a batch", retention.Report{ByKind: map[retention.Kind]retention.Deleted{retention.KindRuns: {Runs: 2, Attempts: 2}, retention.KindLogs: {}}},
			errors.New("disk I/O error"), false, "stopped after 0s by the error below, having deleted runs: 2 runs, 2 attempts, 0 events, 0 logs (0 B)\n"},
		{"a log kept", retention.Report{ByKind: map[retention.Kind]retention.Deleted{retention.KindRuns: {}}, Kept: []retention.Kept{{}}}, nil, false,
			"incomplete after 0s (1 log not removed): runs: 0 runs, 0 attempts, 0 events, 0 logs (0 B); 0 B given back to the file system\n"},
		{"done", retention.Report{ByKind: map[retention.Kind]retention.Deleted{}}, nil, false, "done in 0s: nothing; 0 B given back to the file system\n"},
		{"done on PostgreSQL", retention.Report{ByKind: map[retention.Kind]retention.Deleted{}}, nil, true,
			"done in 0s: nothing; PostgreSQL reuses the space of the deleted rows once autovacuum has run; none is given back to the file system\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		summary(&b, c.rep, c.err, c.postgres)
		if b.String() != c.want {
			t.Errorf("%s: %q, want %q", c.name, b.String(), c.want)
		}
	}
}

// A dry run's log cap line says how far the logs are over the cap and that
// whole logs go, so at least that much is deleted — never that logs
// holding exactly that much would go; a pass's line counts what it
// deleted.
func TestTheLogCapsDryRunLineSaysAtLeastWhatIsOverTheCap(t *testing.T) {
	t.Parallel()
	if got := describe(retention.KindLogBytes, retention.Deleted{LogBytes: 1 << 20}); !strings.Contains(got, "1 MiB over it") || !strings.Contains(got, "at least") {
		t.Errorf("the dry run's cap line is %q; want how far over the cap, and at least that much", got)
	}
	if got := describe(retention.KindLogBytes, retention.Deleted{Logs: 46, LogBytes: 1400936}); !strings.HasPrefix(got, "logs over the cap: 46 logs (") {
		t.Errorf("the pass's cap line is %q; want the logs it deleted counted", got)
	}
}

// A pass that could not remove some log files is refused for the files'
// state (failed_precondition, exit 4), never as an internal failure: its
// reason names the first file's problem and its message what fixes it,
// after what the pass deleted, which its summary says.
func TestAPassThatCouldNotRemoveLogsSaysTheFilesProblemNotAnInternalFailure(t *testing.T) {
	t.Parallel()
	const path = "/srv/ql/qinglong-logs/a.log"
	rep := retention.Report{Kept: []retention.Kept{{Run: "r", Attempt: "a", Path: path, Err: &fs.PathError{Op: "remove", Path: path, Err: syscall.EROFS}}}}
	err := keptError(rep)
	if qlerror.CodeOf(err) != qlerror.FailedPrecondition || exitCodeOf(err) != ExitConflict || qlerror.ReasonOf(err) != retention.RefusalLogsNotRemovable {
		t.Fatalf("%v: code %s, exit %d, reason %q; want failed_precondition, exit 4, logs_not_removable", err, qlerror.CodeOf(err), exitCodeOf(err), qlerror.ReasonOf(err))
	}
	if p := qlerror.ParamsOf(err); p["problem"] != retention.ProblemReadOnly || p["path"] != path || p["files"] != "1" {
		t.Errorf("params %v; want problem read_only, the path and 1 file", p)
	}
	if !strings.Contains(err.Error(), path+": the file system holding the logs is mounted read-only: remount it read-write") {
		t.Errorf("message %q; want the path and what fixes a read-only file system", err)
	}
}
