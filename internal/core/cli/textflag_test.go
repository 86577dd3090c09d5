package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// A size or duration flag prints back the value as the operator wrote it
// (so a refusal of its range names it so), a zero as 0 however written,
// and a default never written in its kind's format; one that does not
// read is refused with how its kind is written and leaves the value as it
// was.
func TestAFlagPrintsItsValueAsWrittenAndItsDefaultFormatted(t *testing.T) {
	var size int64
	var dur time.Duration
	fs := pflag.NewFlagSet("ql", pflag.ContinueOnError)
	SizeVar(fs, &size, "size", 2<<20, "")
	DurationVar(fs, &dur, "duration", 90*time.Minute, "")
	for _, c := range []struct {
		flag, kind, dflt, written, zero, bad, refusal string
	}{
		{"size", "size", "2 MiB", "2048KiB", "0KiB", "1.5MiB", retention.SizeForms},
		{"duration", "duration", validate.Duration(90 * time.Minute), "90000s", "0s", "1.5d", validate.DurationForms},
	} {
		f := fs.Lookup(c.flag).Value
		if f.Type() != c.kind || f.String() != c.dflt {
			t.Errorf("--%s unset: type %q, printed %q; want %q, %q", c.flag, f.Type(), f.String(), c.kind, c.dflt)
		}
		if err := f.Set(c.written); err != nil || f.String() != c.written {
			t.Errorf("--%s %s: %v, printed %q; want it printed as written", c.flag, c.written, err, f.String())
		}
		if err := f.Set(c.bad); err == nil || !strings.Contains(err.Error(), c.refusal) || f.String() != c.written {
			t.Errorf("--%s %s: %v, printed %q; want a refusal saying %q and the value kept as %q", c.flag, c.bad, err, f.String(), c.refusal, c.written)
		}
		if err := f.Set(c.zero); err != nil || f.String() != "0" {
			t.Errorf("--%s %s: %v, printed %q; want 0", c.flag, c.zero, err, f.String())
		}
	}
}

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
