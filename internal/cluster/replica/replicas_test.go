package replica

import (
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

func TestTwoReplicasAdmitEveryOccurrenceExactlyOnce(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("pair", 200, "* * * * * *"))

	// Pages far smaller than a second's 200 occurrences, so that the two
	// replicas share each second's work rather than one taking it whole.
	a := startReplica(t, bin, env, "replica-a", "--cadence", "250ms", "--page-size", "32")
	b := startReplica(t, bin, env, "replica-b", "--cadence", "250ms", "--page-size", "32")
	a.await(t, CodeReady, 30*time.Second)
	b.await(t, CodeReady, 30*time.Second)

	pidsA, pidsB := backends(t, env, "replica-a"), backends(t, env, "replica-b")
	if len(pidsA) == 0 || len(pidsB) == 0 {
		t.Fatalf("backends a=[%s] b=[%s]: each replica needs its own pool", fmtPids(pidsA), fmtPids(pidsB))
	}
	for _, p := range pidsA {
		for _, q := range pidsB {
			if p == q {
				t.Fatalf("replicas share backend %d", p)
			}
		}
	}
	// Every-second triggers: each second, 200 occurrences fall due.
	eventually(t, 30*time.Second, "600 runs", func() bool { return env.Count(t).Runs >= 600 })
	for _, r := range []*child{a, b} {
		if code, reason := r.readyz(t); code != http.StatusOK {
			t.Fatalf("%s readyz %d %s while admitting", r.owner, code, reason)
		}
	}
	a.signal(t, syscall.SIGTERM, 15*time.Second)
	b.signal(t, syscall.SIGTERM, 15*time.Second)
	for _, r := range []*child{a, b} {
		if code := r.cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("%s exited %d after SIGTERM", r.owner, code)
		}
	}

	o := env.Count(t)
	if o.Duplicates != 0 || o.Malformed != 0 || o.Attempts != o.Runs || o.Events != 2*o.Runs {
		t.Fatalf("occurrences %+v: want exactly one Run, one Attempt and two events per occurrence", o)
	}
	byA, byB := admittedTotal(a.logs), admittedTotal(b.logs)
	if byA == 0 || byB == 0 || byA+byB != o.Runs {
		t.Fatalf("replica-a admitted %d, replica-b %d, database holds %d runs: both must work and every Run must be accounted once", byA, byB, o.Runs)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner IS NOT NULL AND claim_owner NOT IN ('replica-a', 'replica-b')`); n != 0 {
		t.Fatalf("%d claims by an unknown owner", n)
	}
}
