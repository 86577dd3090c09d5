package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// `serve --help` states each profile's defaults as the profile gives them,
// never a copy that could drift from what the server applies.
func TestServeHelpStatesEachProfilesOwnDefaults(t *testing.T) {
	t.Parallel()
	none := func(context.Context, *cobra.Command, *ServeFlags) error { return nil }
	opts := Options{Binary: "ql", Profiles: map[string]Profile{
		ProfileStandalone: {Serve: none, Defaults: ServeDefaults{PageSize: 7, Cadence: 3 * time.Minute, Grace: 2 * time.Hour,
			StopTimeout: 1500 * time.Millisecond, LogMaxBytes: 3 << 20,
			Retention: retention.Policy{RunsAge: 9 * retention.Day, LogsAge: 0, LogBytes: 5 << 30}}},
		ProfileCluster: {Serve: none, Defaults: ServeDefaults{PageSize: 11, Cadence: 2 * time.Second, Grace: 45 * time.Second,
			StopTimeout: 4 * time.Second, Concurrency: NoConcurrency, LogMaxBytes: 6 << 10, HTTPAddr: "127.0.0.1:9999",
			Lease: 12 * time.Second, CommitParallel: 3, WorkerAddr: "127.0.0.1:7777", RunLease: 90 * time.Second,
			Bounds: map[string]string{"lease": "1s–60s", "commit-parallel": "1–16", "run-lease": "3s–10m"}}},
	}}
	code, out, stderr := qlWith(t, opts, "serve", "--help")
	if code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, stderr)
	}
	help := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"page 7, cadence 3m, misfire grace 2h",
		"page 11, cadence 2s, misfire grace 45s",
		"default: standalone 7, cluster 11)",
		"default: standalone 3m, cluster 2s)",
		"default: standalone 2h, cluster 45s)",
		"default: standalone 1.5s, cluster 4s)",
		"commands run at once (default: standalone CPU count)",
		"default: standalone 3 MiB, cluster 6 KiB)",
		"default: standalone 9d, cluster off)",
		"default: standalone off, cluster off)",
		"default: standalone 5GiB, cluster off)",
		"default: standalone off, cluster 127.0.0.1:9999)",
		"claim lease (1s–60s; default 12s)",
		"one transaction each (1–16; default 3)",
		"worker ingress (default 127.0.0.1:7777;",
		"(3s–10m; default 1m30s)",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, out)
		}
	}
}

// A 0 given to a serve setting whose range leaves it out is refused by
// name with the range the profile holds it to, in the words of any other
// value outside it, never replaced by the profile's default unseen; a 0
// misfire grace is a grace of none, and reaches the profile as given.
func TestServeRefusesAZeroGivenWithTheFlagsRangeAndKeepsAZeroGrace(t *testing.T) {
	t.Parallel()
	var got *ServeFlags
	keep := func(_ context.Context, _ *cobra.Command, f *ServeFlags) error { got = f; return nil }
	opts := Options{Binary: "ql", Profiles: map[string]Profile{ProfileStandalone: {Serve: keep, Defaults: standaloneBounds}}}
	for _, c := range []struct{ flag, bound, zero string }{
		{"--page-size", "1–256", "0"}, {"--cadence", "250ms–1h", "0s"}, {"--stop-timeout", "100ms–30s", "0ms"}, {"--concurrency", "1–256", "0"},
		{"--log-max-bytes", "1 KiB–1 GiB", "0KiB"}, {"--notify-backoff", "100ms–1h", "0"}, {"--notify-max-attempts", "1–100", "0"},
	} {
		for _, zero := range []string{"0", c.zero} {
			code, _, stderr := qlWith(t, opts, "serve", c.flag, zero)
			want := c.flag + " 0 is outside " + c.bound
			if line, _, _ := strings.Cut(stderr, "\n"); code != 2 || line != "ql: "+want {
				t.Errorf("serve %s %s: exit %d %q, want 2 saying %q", c.flag, zero, code, stderr, want)
			}
		}
	}
	if code, _, stderr := qlWith(t, opts, "serve", "--misfire-grace", "0"); code != 0 || got == nil || !got.GraceSet || got.Grace != 0 {
		t.Fatalf("serve --misfire-grace 0: exit %d %q, flags %+v; want a grace of none, given", code, stderr, got)
	}
	got = nil
	if code, _, _ := qlWith(t, opts, "serve"); code != 0 || got == nil || got.GraceSet {
		t.Fatalf("serve without --misfire-grace: exit %d, flags %+v; want the grace left to the profile", code, got)
	}
}

// `serve --help` states the bounds of --concurrency and --log-max-bytes,
// which a refusal of a value outside them names: once when every profile
// that has them shares them, else each profile's.
func TestServeHelpStatesTheBoundsOfConcurrencyAndLogMaxBytes(t *testing.T) {
	t.Parallel()
	none := func(context.Context, *cobra.Command, *ServeFlags) error { return nil }
	single := ServeDefaults{MaxConcurrency: 64, LogMaxBytes: 1 << 20, LogMaxBytesMin: 1 << 10, LogMaxBytesMax: 1 << 30}
	opts := Options{Binary: "ql", Profiles: map[string]Profile{
		ProfileStandalone: {Serve: none, Defaults: single},
		ProfileEdge:       {Serve: none, Defaults: single},
		ProfileCluster: {Serve: none, Defaults: ServeDefaults{Concurrency: NoConcurrency,
			LogMaxBytes: 16 << 20, LogMaxBytesMin: 4 << 10, LogMaxBytesMax: 1 << 30}},
	}}
	code, out, stderr := qlWith(t, opts, "serve", "--help")
	if code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, stderr)
	}
	help := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"commands run at once (1–64; default: standalone CPU count, edge CPU count)",
		"1MiB or bytes (standalone 1 KiB–1 GiB, edge 1 KiB–1 GiB, cluster 4 KiB–1 GiB; default: standalone 1 MiB, edge 1 MiB, cluster 16 MiB)",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, out)
		}
	}
}

// A serve setting refused by name says where its value came from when the
// command line did not give it — the environment variable, or the config
// file — whether serve itself refuses it or the profile does; one given
// on the command line is refused as before.
func TestARefusedServeSettingGivenOutsideTheCommandLineSaysWhereItCameFrom(t *testing.T) {
	refuseAddr := func(_ context.Context, _ *cobra.Command, f *ServeFlags) error {
		return CheckListenAddr("--http-addr", f.HTTPAddr, "127.0.0.1:8080")
	}
	opts := Options{Binary: "ql", Profiles: map[string]Profile{ProfileStandalone: {Serve: refuseAddr, Defaults: standaloneBounds}}}
	config := filepath.Join(t.TempDir(), "ql.yaml")
	if err := os.WriteFile(config, []byte("concurrency: 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env, args []string
		says      string
		from      string
	}{
		{[]string{"QL_CONCURRENCY", "0"}, nil, "--concurrency 0 is outside 1–256", " (set by QL_CONCURRENCY in the environment)"},
		{[]string{"QL_HTTP_ADDR", "nonsense"}, nil, `--http-addr "nonsense" must be`, " (set by QL_HTTP_ADDR in the environment)"},
		{nil, []string{"--config", config}, "--concurrency 0 is outside 1–256", " (set by concurrency in --config " + config + ")"},
		{nil, []string{"--concurrency", "0"}, "--concurrency 0 is outside 1–256", ""},
	} {
		t.Run(strings.Join(append(c.env, c.args...), " "), func(t *testing.T) {
			if c.env != nil {
				t.Setenv(c.env[0], c.env[1])
			}
			code, _, stderr := qlWith(t, opts, append([]string{"serve"}, c.args...)...)
			line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
			if code != 2 || !strings.Contains(line, c.says) || !strings.HasSuffix(line, c.from) || (c.from == "" && strings.Contains(line, "(set by")) {
				t.Errorf("exit %d %q; want 2, %q ending %q", code, stderr, c.says, c.from)
			}
		})
	}
}

// standaloneBounds are the ranges a standalone profile states for the
// settings whose range leaves 0 out.
var standaloneBounds = ServeDefaults{MaxConcurrency: 256, LogMaxBytesMin: 1 << 10, LogMaxBytesMax: 1 << 30,
	Bounds: map[string]string{"page-size": "1–256", "cadence": "250ms–1h", "stop-timeout": "100ms–30s"}}
