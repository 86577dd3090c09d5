package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/scheduler"
)

func TestActivationBackoffDoublesUpToAQuarterOfTheCadence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cadence time.Duration
		want    []time.Duration
	}{
		{time.Second, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond}},
		{250 * time.Millisecond, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond}},
		{time.Hour, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
			1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second, 5 * time.Second}},
	} {
		r := &replica{s: settings{Coordinator: scheduler.Config{Cadence: c.cadence}}}
		for i, want := range c.want {
			if got := r.backoff(i + 1); got != want {
				t.Errorf("cadence %s, attempt %d: backoff %s, want %s", c.cadence, i+1, got, want)
			}
		}
	}
}
