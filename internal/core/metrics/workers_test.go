package metrics

import (
	"context"
	"errors"
	"testing"
	"time"
)

// While the worker sessions cannot be read (a replica between two
// activations), qinglong_workers is absent rather than stale and the
// failure counts in qinglong_monitor_read_failures_total; once a read
// succeeds every state has its series, a state the read did not name at 0.
func TestTheWorkersGaugeIsAbsentWhileItsReadFailsAndCountsTheFailure(t *testing.T) {
	var readErr error
	m := New(Config{Profile: ProfileCluster, CacheFor: time.Nanosecond, WorkerStates: func(context.Context, int) (map[string]int, error) {
		return map[string]int{WorkerActive: 2, WorkerExpired: 1}, readErr
	}})
	readErr = errors.New("no activation")
	fams := gather(t, m)
	if _, present := fams["qinglong_workers"]; present {
		t.Error("a failed read still reported qinglong_workers")
	}
	if got := value(fams, "qinglong_monitor_read_failures_total"); got != 1 {
		t.Errorf("read failures %g, want 1", got)
	}
	readErr = nil
	fams = gather(t, m)
	for state, want := range map[string]float64{WorkerActive: 2, WorkerDraining: 0, WorkerExpired: 1, WorkerLost: 0} {
		if got := value(fams, "qinglong_workers", "state", state); got != want {
			t.Errorf("qinglong_workers{state=%q} = %g, want %g", state, got, want)
		}
	}
	if got := value(fams, "qinglong_monitor_read_failures_total"); got != 1 {
		t.Errorf("read failures %g after a read that succeeded, want still 1", got)
	}
	if _, present := gather(t, New(Config{Profile: "standalone"}))["qinglong_workers"]; present {
		t.Error("a single-node server exports qinglong_workers")
	}
}
