package metrics

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// While the per-trigger read fails (the database unreachable), its series
// are absent and the failure is counted, as for every other store read;
// the next read that answers brings them back.
func TestAFailedPerTriggerReadLeavesItsSeriesOutAndIsCounted(t *testing.T) {
	fail := true
	m := New(Config{Profile: "standalone", CacheFor: time.Nanosecond, PerTrigger: 5,
		TriggerActivity: func(context.Context, int) (schedule.TriggerActivitySnapshot, error) {
			if fail {
				return schedule.TriggerActivitySnapshot{}, errors.New("database unreachable")
			}
			return schedule.TriggerActivitySnapshot{Eligible: 1, Triggers: []schedule.TriggerActivity{{Project: "p", Trigger: "t"}}}, nil
		}})
	fams := gather(t, m)
	if _, present := fams["qinglong_trigger_last_success_timestamp_seconds"]; present || value(fams, "qinglong_monitor_read_failures_total") != 1 {
		t.Fatalf("after a failed read: last success present %v, read failures %g; want absent and 1", present, value(fams, "qinglong_monitor_read_failures_total"))
	}
	fail = false
	fams = gather(t, m)
	// Never succeeded, never run: 0, so an alert tells "never" from a
	// trigger that is not exported.
	if got := value(fams, "qinglong_trigger_last_success_timestamp_seconds", "project", "p", "trigger", "t"); got != 0 {
		t.Fatalf("a trigger that never succeeded reads %g, want 0", got)
	}
	if got := value(fams, "qinglong_trigger_last_run_timestamp_seconds", "project", "p", "trigger", "t"); got != 0 {
		t.Fatalf("a trigger that never ran reads %g, want 0", got)
	}
}

// A paused trigger's series says so (1), an unpaused one's says 0, each
// beside its other per-trigger series, so a rule on staleness can leave
// the paused ones out.
func TestAPausedTriggerIsExportedAsPaused(t *testing.T) {
	m := New(Config{Profile: "standalone", CacheFor: time.Nanosecond, PerTrigger: 5,
		TriggerActivity: func(context.Context, int) (schedule.TriggerActivitySnapshot, error) {
			return schedule.TriggerActivitySnapshot{Eligible: 2, Triggers: []schedule.TriggerActivity{
				{Project: "p", Trigger: "held", Paused: true}, {Project: "p", Trigger: "live"}}}, nil
		}})
	fams := gather(t, m)
	held := value(fams, "qinglong_trigger_paused", "project", "p", "trigger", "held")
	live := value(fams, "qinglong_trigger_paused", "project", "p", "trigger", "live")
	if held != 1 || live != 0 {
		t.Fatalf("qinglong_trigger_paused: paused trigger %g, unpaused %g; want 1 and 0", held, live)
	}
}

// The cap is warned about once per server, however many reads find it
// reached, and not at all while every trigger is exported.
func TestTheCapIsWarnedAboutOnce(t *testing.T) {
	var logs strings.Builder
	eligible := 3
	m := New(Config{Profile: "standalone", CacheFor: time.Nanosecond, PerTrigger: 3, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		TriggerActivity: func(_ context.Context, limit int) (schedule.TriggerActivitySnapshot, error) {
			snap := schedule.TriggerActivitySnapshot{Eligible: eligible}
			for range min(limit, eligible) {
				snap.Triggers = append(snap.Triggers, schedule.TriggerActivity{Project: "p", Trigger: "t" + strings.Repeat("x", len(snap.Triggers))})
			}
			return snap, nil
		}})
	gather(t, m)
	if logs.Len() != 0 {
		t.Fatalf("warned with every trigger exported:\n%s", logs.String())
	}
	eligible = 7
	for range 3 {
		if got := value(gather(t, m), "qinglong_triggers_left_out"); got != 4 {
			t.Fatalf("left out %g, want 4", got)
		}
	}
	if n := strings.Count(logs.String(), "code="+CodePerTriggerCapped); n != 1 || !strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("warned %d times, want once at WARN:\n%s", n, logs.String())
	}
}

// --metrics-per-trigger takes 0 (off) to 5,000, enough for a catalogue of
// a few thousand triggers, and names its range when refused.
func TestMetricsPerTriggerTakesUpTo5000TriggersAndNamesItsRangeBeyond(t *testing.T) {
	for _, ok := range []int{0, 1, 1501, 5000} {
		if err := CheckPerTrigger(ok); err != nil {
			t.Errorf("%d refused: %v", ok, err)
		}
	}
	for _, bad := range []int{-1, 5001} {
		if err := CheckPerTrigger(bad); err == nil || !strings.Contains(err.Error(), "is outside 0–5000") {
			t.Errorf("%d: %v, want refused with its range", bad, err)
		}
	}
}
