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
		{Settings{Runs: "14", Logs: "2d", LogBytes: "512MiB", Notifications: "10d"}, Policy{RunsAge: 14 * Day, LogsAge: 2 * Day, LogBytes: 512 << 20, NotificationsAge: 10 * Day}},
		{Settings{Runs: "off", Logs: "0", LogBytes: "OFF", Notifications: "off"}, Policy{}},
		{Settings{LogBytes: "1073741824"}, Policy{RunsAge: 30 * Day, LogsAge: 7 * Day, LogBytes: 1 << 30, NotificationsAge: 30 * Day}},
		{Settings{LogBytes: "2 GiB"}, Policy{RunsAge: 30 * Day, LogsAge: 7 * Day, LogBytes: 2 << 30, NotificationsAge: 30 * Day}},
	}
	for _, c := range cases {
		got, err := c.s.Resolve(StandaloneDefaults)
		if err != nil || got != c.want {
			t.Errorf("%+v: %+v, %v; want %+v", c.s, got, err, c.want)
		}
	}
	if !(Policy{}).Off() || StandaloneDefaults.Off() || (Policy{NotificationsAge: Day}).Off() {
		t.Fatal("Off: wrong for the zero policy, the defaults or the notifications rule alone")
	}
	if got := EdgeDefaults.String(); got != "runs 3d, logs 3d, log bytes 64MiB, notifications 3d" {
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
		{Settings{Notifications: "a month"}, []string{"--retention-notifications", `"a month"`, "off"}},
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

// A well-formed value outside a setting's range is refused as out of
// range, with the range; "is not a …" is kept for what cannot be read.
func TestAWellFormedSettingOutOfRangeSaysSoWithTheRange(t *testing.T) {
	for _, c := range []struct {
		s          Settings
		want, bare string
	}{
		{Settings{Runs: "36601"}, `--retention-runs "36601" is out of range (0–36600 days)`, "not a number"},
		{Settings{Logs: "-1d"}, `--retention-logs "-1d" is out of range (0–36600 days)`, "not a number"},
		{Settings{Notifications: "99999999999999999999"}, `--retention-notifications "99999999999999999999" is out of range (0–36600 days)`, "not a number"},
		{Settings{LogBytes: "1KiB"}, `--retention-log-bytes "1KiB" is out of range (1 MiB–1024 TiB)`, "not a size"},
		{Settings{LogBytes: "2048TiB"}, `--retention-log-bytes "2048TiB" is out of range (1 MiB–1024 TiB)`, "not a size"},
		{Settings{LogBytes: "99999999999999999999"}, `--retention-log-bytes "99999999999999999999" is out of range (1 MiB–1024 TiB)`, "not a size"},
		{Settings{Runs: "30 days"}, `--retention-runs "30 days" is not a number of days`, "out of range"},
		{Settings{LogBytes: "1.5GiB"}, `--retention-log-bytes "1.5GiB" is not a size`, "out of range"},
	} {
		_, err := c.s.Resolve(StandaloneDefaults)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.bare) {
			t.Errorf("%+v: %v; want %q", c.s, err, c.want)
		}
	}
}

func TestEstimateCountsTheCapAfterTheAgeRules(t *testing.T) {
	est := Estimate(Policy{RunsAge: time.Hour, LogBytes: 100}, Deleted{Runs: 1, LogBytes: 50}, Deleted{Logs: 9, LogBytes: 900}, 300, 7, 0)
	if _, ok := est[KindLogs]; ok {
		t.Fatal("the logs rule is off, yet estimated")
	}
	if _, ok := est[KindNotifications]; ok {
		t.Fatal("the notifications rule is off, yet estimated")
	}
	if est[KindLogBytes].LogBytes != 150 || est[KindRuns].Runs != 1 {
		t.Fatalf("estimate %+v; want 150 bytes over the cap after the runs rule", est)
	}
}

// TestEveryProfileKeepsNotificationsAsLongAsItsRuns: the notifications
// rule is on by default on every profile, for the period finished Runs are
// kept, so the outbox is bounded wherever a server runs.
func TestEveryProfileKeepsNotificationsAsLongAsItsRuns(t *testing.T) {
	for name, p := range map[string]Policy{"standalone": StandaloneDefaults, "edge": EdgeDefaults, "cluster": ClusterDefaults} {
		if p.NotificationsAge == 0 || p.NotificationsAge != p.RunsAge {
			t.Errorf("%s keeps notifications %s and Runs %s; want the same period, on", name, AgeSetting(p.NotificationsAge), AgeSetting(p.RunsAge))
		}
	}
	est := Estimate(Policy{NotificationsAge: Day}, Deleted{}, Deleted{}, 0, 7, 0)
	if _, sessions := est[KindSessions]; est[KindNotifications].Notifications != 7 || !sessions || len(est) != 2 {
		t.Fatalf("estimate %+v; want the 7 notifications and the sessions rule, which is never off, alone", est)
	}
}

// The log cap counts a log in whole blocks of the file system, at least
// one: an empty or one-line log takes a block and an inode on disk.
func TestTheLogCapCountsWhatLogsTakeOnDiskInWholeBlocks(t *testing.T) {
	for size, want := range map[int64]int64{0: 4096, 1: 4096, 40: 4096, 4096: 4096, 4097: 8192, 1 << 20: 1 << 20} {
		if got := DiskBytes(size); got != want {
			t.Errorf("DiskBytes(%d) = %d, want %d", size, got, want)
		}
	}
}

// TestAnAgeTakesHoursForADeviceThatKeepsLessThanADay: a router keeps its
// Runs for hours; 12h reads as twelve hours and is written back as 12h,
// a whole number of days still as days, and what is neither is refused
// saying both forms.
func TestAnAgeTakesHoursForADeviceThatKeepsLessThanADay(t *testing.T) {
	got, err := Settings{Runs: "12h", Logs: "48H", Notifications: "2d"}.Resolve(EdgeDefaults)
	if err != nil || got.RunsAge != 12*time.Hour || got.LogsAge != 48*time.Hour || got.NotificationsAge != 2*Day {
		t.Fatalf("12h, 48H, 2d resolve as %+v, %v", got, err)
	}
	if s := got.String(); s != "runs 12h, logs 2d, log bytes 64MiB, notifications 2d" {
		t.Fatalf("the policy prints as %q", s)
	}
	for v, want := range map[string]string{
		"12dh":    "is not a number of days or hours: write e.g. 30 or 30d (0–36600 days), 12h (0–878400 hours)",
		"1.5h":    "is not a number of days or hours",
		"878401h": `"878401h" is out of range (0–878400 hours)`,
		"-1h":     `"-1h" is out of range (0–878400 hours)`,
	} {
		if _, err := (Settings{Runs: v}).Resolve(EdgeDefaults); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--retention-runs %s: %v; want %q", v, err, want)
		}
	}
}

// After a batch the store found the writer idle for, a pass rests for
// the catch-up share; after any other, for its share: a batch of 10 ms is
// followed by 10 ms at half the time, by 90 ms at a tenth.
func TestAPassRestsForTheCatchUpShareOnlyAfterAnIdleBatch(t *testing.T) {
	o := Options{Share: 0.1, CatchUpShare: 0.5}.withDefaults()
	took := 10 * time.Millisecond
	if got := o.pause(took, true); got != took {
		t.Errorf("after an idle batch of %s: rest %s; want %s", took, got, took)
	}
	if got := o.pause(took, false); got != 9*took {
		t.Errorf("after a batch of %s with the writer wanted: rest %s; want %s", took, got, 9*took)
	}
	if got := (Options{Share: 0.1}).withDefaults().pause(took, true); got != 9*took {
		t.Errorf("without a catch-up share, after an idle batch: rest %s; want %s", got, 9*took)
	}
}
