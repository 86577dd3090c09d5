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

// --log-max-bytes reads a size as --retention-log-bytes does (1KiB,
// 64 MiB, bytes), on the command line, in the environment and in the
// config file; one that does not read is refused, naming the flag, the
// value and how a size is written.
func TestLogMaxBytesTakesTheSizesRetentionLogBytesTakes(t *testing.T) {
	var got *ServeFlags
	keep := func(_ context.Context, _ *cobra.Command, f *ServeFlags) error { got = f; return nil }
	opts := Options{Binary: "ql", Profiles: map[string]Profile{ProfileStandalone: {Serve: keep, Defaults: standaloneBounds}}}
	for written, want := range map[string]int64{"1KiB": 1 << 10, "64 mib": 64 << 20, "1GiB": 1 << 30, "4096": 4096, "2048B": 2048} {
		got = nil
		if code, _, stderr := qlWith(t, opts, "serve", "--log-max-bytes", written); code != 0 || got == nil || got.LogMaxBytes != want {
			t.Errorf("serve --log-max-bytes %q: exit %d %q, flags %+v; want %d bytes", written, code, stderr, got, want)
		}
	}
	for _, bad := range []string{"1KB", "1.5MiB", "lots"} {
		code, _, stderr := qlWith(t, opts, "serve", "--log-max-bytes", bad)
		if code != 2 || !strings.Contains(stderr, `"`+bad+`"`) || !strings.Contains(stderr, "--log-max-bytes") || !strings.Contains(stderr, retention.SizeForms) {
			t.Errorf("serve --log-max-bytes %s: exit %d %q; want 2 naming the flag, the value and how a size is written", bad, code, stderr)
		}
	}
	config := filepath.Join(t.TempDir(), "ql.yaml")
	if err := os.WriteFile(config, []byte("log-max-bytes: 2MiB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got = nil
	if code, _, stderr := qlWith(t, opts, "serve", "--config", config); code != 0 || got == nil || got.LogMaxBytes != 2<<20 {
		t.Errorf("serve --config (log-max-bytes: 2MiB): exit %d %q, flags %+v; want 2 MiB", code, stderr, got)
	}
	t.Setenv(EnvName("log-max-bytes"), "3MiB")
	got = nil
	if code, _, stderr := qlWith(t, opts, "serve"); code != 0 || got == nil || got.LogMaxBytes != 3<<20 {
		t.Errorf("serve with %s=3MiB: exit %d %q, flags %+v; want 3 MiB", EnvName("log-max-bytes"), code, stderr, got)
	}
}
