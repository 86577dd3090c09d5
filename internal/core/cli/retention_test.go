package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// The config file names the retention settings as flags or as one
// retention section; a setting given both ways is refused.
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
}
