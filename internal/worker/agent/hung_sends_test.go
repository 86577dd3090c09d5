package agent

import (
	"strings"
	"testing"
)

// A replica that hangs (it takes every renewal and never answers) never
// holds more than two sends of one renewal open: the first, awaited until
// the kill point, and the one sent beside it once half of that passed.
// At the shortest lease (3 s) a renewal has 1.7 s to the kill point;
// unbounded, it was sent again at 0.85 s, 1.28 s, 1.49 s and 1.69 s, each
// beside the others, and the replica held them all open, a connection
// each, for every command the worker ran.
func TestAHungReplicaNeverHoldsMoreThanTwoSendsOfOneRenewalOpen(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 3_000)
	in.mu.Lock()
	in.hangRenewals = true
	in.mu.Unlock()
	in.enqueue(t, shell(`sleep 30`))
	w := runAgent(t, in, nil)
	waitFor(t, "the lease to be lost", func() bool { return strings.Contains(w.logs.String(), "attempt_lease_lost") })
	in.mu.Lock()
	renewals, most := in.renewals, in.mostRenewalsOpen
	in.mu.Unlock()
	if most != 2 {
		t.Fatalf("the hung replica held %d sends of the renewal open at once (%d taken in all); want 2: the first and the one sent beside it\nworker log:\n%s", most, renewals, w.logs)
	}
}
