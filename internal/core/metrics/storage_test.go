package metrics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// A storage read that fails leaves its gauge out, rather than repeating
// the last size as if it were current, and counts as a failed store read;
// the next read that succeeds brings the gauge back.
func TestAFailedStorageReadLeavesItsGaugeOutAndIsCounted(t *testing.T) {
	var down bool
	m := New(Config{Profile: "standalone", CacheFor: time.Nanosecond})
	m.AddStorage(Storage{
		DatabaseBytes: func(context.Context) (int64, error) {
			if down {
				return 0, errors.New("database unreachable")
			}
			return 4096, nil
		},
		DataDirFreeBytes: func() (int64, error) { return 1 << 30, nil },
	})
	fams := gather(t, m)
	if got := value(fams, "qinglong_database_size_bytes"); got != 4096 {
		t.Fatalf("qinglong_database_size_bytes %g, want the 4096 read", got)
	}
	down = true
	fams = gather(t, m)
	if _, ok := fams["qinglong_database_size_bytes"]; ok {
		t.Fatal("qinglong_database_size_bytes exported while its read fails")
	}
	if got := value(fams, "qinglong_monitor_read_failures_total"); got != 1 {
		t.Fatalf("qinglong_monitor_read_failures_total %g, want the failed read counted", got)
	}
	if got := value(fams, "qinglong_data_dir_free_bytes"); got != 1<<30 {
		t.Fatalf("qinglong_data_dir_free_bytes %g while the database is down, want the 1 GiB read", got)
	}
	down = false
	if got := value(gather(t, m), "qinglong_database_size_bytes"); got != 4096 {
		t.Fatalf("qinglong_database_size_bytes %g once readable again, want 4096", got)
	}
}

// Every kind retention deletes has a series at 0 from the start, on every
// server; the last pass's time is exported only where a retention loop
// runs, 0 until a pass completes; a pass that failed part way counts what
// it deleted and leaves the time of the last completed one.
func TestRetentionDeletionsStartAtZeroAndOnlyACompletedPassMovesTheLastPassTime(t *testing.T) {
	m := New(Config{Profile: "edge"})
	fams := gather(t, m)
	for _, k := range DeletedKinds {
		if got := value(fams, "qinglong_retention_deleted_total", "kind", k); got != 0 {
			t.Errorf("qinglong_retention_deleted_total{kind=%q} %g at start, want 0", k, got)
		}
	}
	if _, ok := fams["qinglong_retention_last_pass_timestamp_seconds"]; ok {
		t.Fatal("the last pass's time is exported by a server that runs no retention")
	}
	observe := m.RetentionLoop()
	if got := value(gather(t, m), "qinglong_retention_last_pass_timestamp_seconds"); got != 0 {
		t.Fatalf("last pass time %g before any pass, want 0", got)
	}
	before := time.Now()
	observe(retention.Report{Total: retention.Deleted{Runs: 2, Attempts: 3, Events: 6, Logs: 3, LogBytes: 12288}}, nil)
	after := time.Now()
	first := value(gather(t, m), "qinglong_retention_last_pass_timestamp_seconds")
	if first < float64(before.UnixNano())/1e9 || first > float64(after.UnixNano())/1e9 {
		t.Fatalf("last pass time %f, want the pass's end, between %d and %d", first, before.Unix(), after.Unix())
	}
	observe(retention.Report{Total: retention.Deleted{Runs: 1, Notifications: 4, Sessions: 5}}, context.Canceled)
	fams = gather(t, m)
	for k, want := range map[string]float64{"runs": 3, "attempts": 3, "events": 6, "logs": 3, "notifications": 4, "sessions": 5} {
		if got := value(fams, "qinglong_retention_deleted_total", "kind", k); got != want {
			t.Errorf("qinglong_retention_deleted_total{kind=%q} %g, want %g", k, got, want)
		}
	}
	if got := value(fams, "qinglong_retention_last_pass_timestamp_seconds"); got != first {
		t.Fatalf("a failed pass moved the last pass time from %f to %f", first, got)
	}
}
