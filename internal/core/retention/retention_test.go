package retention

import (
	"strings"
	"testing"
	"time"
)

func TestSettingsResolveOverTheProfileDefaults(t *testing.T) {
	cases := []struct {
		s    Settings
		want Policy
	}{
		{Settings{}, StandaloneDefaults},
		{Settings{Runs: "14", Logs: "2d", LogBytes: "512MiB"}, Policy{RunsAge: 14 * Day, LogsAge: 2 * Day, LogBytes: 512 << 20}},
		{Settings{Runs: "off", Logs: "0", LogBytes: "OFF"}, Policy{}},
		{Settings{LogBytes: "1073741824"}, Policy{RunsAge: 30 * Day, LogsAge: 7 * Day, LogBytes: 1 << 30}},
		{Settings{LogBytes: "2 GiB"}, Policy{RunsAge: 30 * Day, LogsAge: 7 * Day, LogBytes: 2 << 30}},
	}
	for _, c := range cases {
		got, err := c.s.Resolve(StandaloneDefaults)
		if err != nil || got != c.want {
			t.Errorf("%+v: %+v, %v; want %+v", c.s, got, err, c.want)
		}
	}
	if !(Policy{}).Off() || StandaloneDefaults.Off() {
		t.Fatal("Off: wrong for the zero policy or the defaults")
	}
	if got := EdgeDefaults.String(); got != "runs 3d, logs 3d, log bytes 64MiB" {
		t.Fatalf("edge defaults print as %q", got)
	}
}

func TestBadSettingsAreRefusedNamingTheFlagAndWhatItAllows(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want []string
	}{
		{Settings{Runs: "30 days"}, []string{"--retention-runs", `"30 days"`, "off"}},
		{Settings{Logs: "-1"}, []string{"--retention-logs", "0–36600"}},
		{Settings{Runs: "99999d"}, []string{"--retention-runs"}},
		{Settings{LogBytes: "1GB"}, []string{"--retention-log-bytes", "1GiB", "1 MiB"}},
		{Settings{LogBytes: "100"}, []string{"--retention-log-bytes", "1 MiB"}},
	} {
		_, err := c.s.Resolve(StandaloneDefaults)
		if err == nil {
			t.Errorf("%+v: accepted", c.s)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q does not say %q", c.s, err, w)
			}
		}
	}
}

func TestEstimateCountsTheCapAfterTheAgeRules(t *testing.T) {
	est := Estimate(Policy{RunsAge: time.Hour, LogBytes: 100}, Deleted{Runs: 1, LogBytes: 50}, Deleted{Logs: 9, LogBytes: 900}, 300)
	if _, ok := est[KindLogs]; ok {
		t.Fatal("the logs rule is off, yet estimated")
	}
	if est[KindLogBytes].LogBytes != 150 || est[KindRuns].Runs != 1 {
		t.Fatalf("estimate %+v; want 150 bytes over the cap after the runs rule", est)
	}
}
