package server

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func TestProfilesHaveTheSpecifiedDefaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		profile     Profile
		page        int
		cadence     time.Duration
		grace       time.Duration
		stop        time.Duration
		concurrency int
	}{
		{"", 256, time.Second, 5 * time.Minute, 10 * time.Second, runtime.NumCPU()},
		{Standalone, 256, time.Second, 5 * time.Minute, 10 * time.Second, runtime.NumCPU()},
		{Edge, 4, 5 * time.Second, 30 * time.Second, 5 * time.Second, 1},
	}
	for _, c := range cases {
		got := Config{Profile: c.profile}.WithDefaults()
		if got.PageSize != c.page || got.Cadence != c.cadence || got.Grace != c.grace || got.StopTimeout != c.stop || got.Concurrency != c.concurrency ||
			got.DataDir != "." || got.LogCapBytes != DefaultLogCapBytes {
			t.Fatalf("profile %q defaults %+v", c.profile, got)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("profile %q defaults do not validate: %v", c.profile, err)
		}
	}
}

func TestInvalidSettingsNameTheSettingAndItsRange(t *testing.T) {
	t.Parallel()
	cases := map[string]Config{
		"--profile":             {Profile: "cluster"},
		"--page-size":           {PageSize: 257},
		"--cadence":             {Cadence: time.Millisecond},
		"--misfire-grace":       {Grace: -time.Second},
		"--stop-timeout":        {StopTimeout: time.Minute},
		"--concurrency":         {Concurrency: -1},
		"--log-max-bytes":       {LogCapBytes: 10},
		"--notify-backoff":      {NotifyBackoff: time.Millisecond},
		"--notify-max-attempts": {NotifyMaxAttempts: -1},
		"--metrics-per-trigger": {MetricsPerTrigger: metrics.MaxPerTrigger + 1},
	}
	for setting, cfg := range cases {
		err := cfg.WithDefaults().Validate()
		if !qlerror.Is(err, qlerror.Invalid) || strings.Count(err.Error(), setting) != 1 {
			t.Fatalf("%s: %v; want an invalid error naming the setting once", setting, err)
		}
	}
}

func TestInvalidConfigIsRejectedBeforeAnythingIsCreated(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir() + "/never"
	_, err := Start(t.Context(), Config{DataDir: dataDir, PageSize: 1000})
	if !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("start with page size 1000: %v", err)
	}
	if _, statErr := os.Stat(dataDir); !os.IsNotExist(statErr) {
		t.Fatalf("an invalid config created %s", dataDir)
	}
}

func TestLayoutKeepsEverythingInTheDataDirectory(t *testing.T) {
	t.Parallel()
	l := LayoutOf("/var/lib/ql")
	want := Layout{DB: "/var/lib/ql/qinglong.db", Logs: "/var/lib/ql/qinglong-logs", Secrets: "/var/lib/ql/qinglong-secrets.json", Owners: "/var/lib/ql/qinglong-owners",
		Lock: "/var/lib/ql/qinglong-server.lock", SetupCode: "/var/lib/ql/qinglong-setup-code", Scripts: "/var/lib/ql/scripts"}
	if l != want {
		t.Fatalf("layout %+v, want %+v", l, want)
	}
	if got := LayoutOfDB("/srv/x.db"); got.DB != "/srv/x.db" || got.Logs != "/srv/qinglong-logs" {
		t.Fatalf("layout of a named file %+v", got)
	}
}

// A misfire grace given as 0 is a grace of none; left out, it is the
// profile's default.
func TestAGivenZeroGraceIsNoGraceNotTheDefault(t *testing.T) {
	if g := (Config{GraceSet: true}).WithDefaults().Grace; g != 0 {
		t.Errorf("grace given as 0 became %s", g)
	}
	if g := (Config{Profile: Edge}).WithDefaults().Grace; g != EdgeGrace {
		t.Errorf("grace left out on edge is %s, want %s", g, EdgeGrace)
	}
}
