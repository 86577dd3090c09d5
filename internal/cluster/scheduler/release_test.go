package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// TestAReplicaStoppedHoldingClaimsAheadGivesThemBack: a replica stopped
// while it holds a burst claimed ahead of its instant leaves nothing
// claimed (long before its 30 s lease would have ended) and admitted
// nothing for the instant; another replica then admits every row at the
// instant, once. Left to expire, the rows would have waited most of a
// lease for it.
func TestAReplicaStoppedHoldingClaimsAheadGivesThemBack(t *testing.T) {
	t.Parallel()
	const triggers = 50
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("held", triggers, "*/5 * * * * *"))
	stopping, _ := onTimeCoordinatorWith(t, env, Config{Owner: "stopping", ClaimAhead: 2 * time.Second}, 0)
	// Rows claimed ahead with more than half a second to go before their
	// instant, so that the stop lands before the replica commits them.
	instant, held := awaitClaimedAhead(t, env, "stopping", 500)
	if err := stopping.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if still := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner = 'stopping'`); still != 0 {
		t.Fatalf("%d rows still claimed by the stopped replica (it held %d ahead of %d)", still, held, instant)
	}
	if early := env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms = $1`, instant); early != 0 {
		t.Fatalf("the stopped replica admitted %d occurrences of %d: the stop did not land before the instant", early, instant)
	}
	onTimeCoordinator(t, env, "taker", time.Second, 0)
	admitted := func() int64 {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms = $1`, instant)
	}
	until := time.Now().Add(pgstore.DefaultLease / 2)
	for admitted() < held {
		if time.Now().After(until) {
			t.Fatalf("%d of the %d rows given back were admitted for %d within half a lease", admitted(), held, instant)
		}
		time.Sleep(20 * time.Millisecond)
	}
	lag := env.Int(t, `SELECT max(created_at_ms - scheduled_for_ms) FROM qinglong.runs WHERE scheduled_for_ms = $1`, instant)
	if lag > 2_000 {
		t.Fatalf("the rows given back were admitted up to %d ms after their instant", lag)
	}
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("%+v", o)
	}
	t.Logf("%d rows held ahead of %d given back on stop; the other replica admitted them at most %d ms after it", held, instant, lag)
}
