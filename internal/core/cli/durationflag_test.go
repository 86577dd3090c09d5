package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// Every duration flag of serve reads a duration as every other
// user-given duration is read, days among it, on the command line and in
// the environment; one that does not read is refused, naming the flag, the
// value and what is accepted.
func TestEveryServeDurationFlagAcceptsDays(t *testing.T) {
	var got *ServeFlags
	keep := func(_ context.Context, _ *cobra.Command, f *ServeFlags) error { got = f; return nil }
	opts := Options{Binary: "ql", Profiles: map[string]Profile{ProfileStandalone: {Serve: keep}}}
	for _, c := range []struct {
		flag string
		of   func(*ServeFlags) time.Duration
	}{
		{"--cadence", func(f *ServeFlags) time.Duration { return f.Cadence }},
		{"--misfire-grace", func(f *ServeFlags) time.Duration { return f.Grace }},
		{"--stop-timeout", func(f *ServeFlags) time.Duration { return f.StopTimeout }},
		{"--notify-backoff", func(f *ServeFlags) time.Duration { return f.NotifyBackoff }},
	} {
		got = nil
		if code, _, stderr := qlWith(t, opts, "serve", c.flag, "1d12h"); code != 0 || got == nil || c.of(got) != 36*time.Hour {
			t.Errorf("serve %s 1d12h: exit %d %q, flags %+v; want it read as 36h", c.flag, code, stderr, got)
		}
		code, _, stderr := qlWith(t, opts, "serve", c.flag, "1.5d")
		if code != 2 || !strings.Contains(stderr, `"1.5d"`) || !strings.Contains(stderr, c.flag) || !strings.Contains(stderr, validate.DurationForms) {
			t.Errorf("serve %s 1.5d: exit %d %q; want 2 naming the flag, the value and what is accepted", c.flag, code, stderr)
		}
	}
	t.Setenv(EnvName("misfire-grace"), "1d")
	got = nil
	if code, _, stderr := qlWith(t, opts, "serve"); code != 0 || got == nil || got.Grace != 24*time.Hour {
		t.Fatalf("serve with %s=1d: exit %d %q, flags %+v; want a grace of 24h", EnvName("misfire-grace"), code, stderr, got)
	}
}
