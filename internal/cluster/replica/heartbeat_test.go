package replica

import (
	"testing"
	"time"
)

// The heartbeat follows the claim lease, a quarter of it, never more often
// than once a second nor rarer than every 5 s.
func TestTheHeartbeatBeatsEveryQuarterLeaseWithinOneToFiveSeconds(t *testing.T) {
	for lease, want := range map[time.Duration]time.Duration{
		time.Second:      time.Second,
		8 * time.Second:  2 * time.Second,
		30 * time.Second: 5 * time.Second,
		60 * time.Second: 5 * time.Second,
	} {
		if got := heartbeatEvery(lease); got != want {
			t.Errorf("heartbeatEvery(%s) = %s, want %s", lease, got, want)
		}
	}
}
