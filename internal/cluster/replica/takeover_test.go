package replica

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

type claim struct {
	version, expiresAtMs int64
}

func TestKilledReplicasClaimsAreTakenOverOnlyAfterDatabaseExpiry(t *testing.T) {
	t.Parallel()
	const triggers = 20
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("takeover", triggers, clustertest.QuietCron()))
	env.MakeDue(t, 1000)

	// Hold the runs table so replica-a's admissions block after its
	// claims are taken: it dies holding them.
	lock, err := env.Super.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(context.Background()) // released below; no-op then
	if _, err := lock.Exec(context.Background(), `LOCK TABLE qinglong.runs IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	a := startReplica(t, bin, env, "replica-a", "--lease", "5s", "--page-size", "32")
	eventually(t, 30*time.Second, "replica-a to claim every row and block in admission", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner = 'replica-a'`) == triggers &&
			env.Int(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'qinglong:replica-a' AND wait_event_type = 'Lock'`) > 0
	})
	held := map[string]claim{}
	rows, err := env.Super.Query(context.Background(), `SELECT trigger_id, claim_version, claim_expires_at_ms FROM qinglong.trigger_schedules`)
	if err != nil {
		t.Fatal(err)
	}
	var minExpiry int64
	for rows.Next() {
		var id string
		var c claim
		if err := rows.Scan(&id, &c.version, &c.expiresAtMs); err != nil {
			t.Fatal(err)
		}
		held[id] = c
		if minExpiry == 0 || c.expiresAtMs < minExpiry {
			minExpiry = c.expiresAtMs
		}
	}
	rows.Close()

	b := startReplica(t, bin, env, "replica-b", "--lease", "5s", "--cadence", "250ms")
	b.await(t, CodeReady, 30*time.Second)

	a.signal(t, syscall.SIGKILL, 10*time.Second)
	if ws, ok := a.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("replica-a ended with %v, not SIGKILL", a.cmd.ProcessState)
	}
	if err := lock.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "replica-a's backends to end", func() bool { return len(backends(t, env, "replica-a")) == 0 })

	// Before database-time expiry nothing moves, although replica-b polls
	// every 250 ms.
	checks := 0
	probe := time.NewTicker(50 * time.Millisecond)
	defer probe.Stop()
	for ; ; <-probe.C {
		var now, stillA, runs int64
		err := env.Super.QueryRow(context.Background(), `SELECT `+pgstore.ClockMsSQL+`,
			(SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner = 'replica-a'),
			(SELECT count(*) FROM qinglong.runs)`).Scan(&now, &stillA, &runs)
		if err != nil {
			t.Fatal(err)
		}
		if now >= minExpiry-50 {
			break
		}
		if stillA != triggers || runs != 0 {
			t.Fatalf("at database time %d (%d ms before expiry) %d rows still claimed by replica-a and %d runs exist: taken over early", now, minExpiry-now, stillA, runs)
		}
		checks++
	}
	if checks < 5 {
		t.Fatalf("only %d checks before expiry; the window was not observed", checks)
	}

	// After expiry replica-b takes every row over, exactly once.
	eventually(t, 20*time.Second, "replica-b to admit every occurrence", func() bool { return env.Count(t).Runs == triggers })
	o := env.Count(t)
	if o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences %+v", o)
	}
	runs, err := env.Super.Query(context.Background(), `SELECT trigger_id, created_at_ms FROM qinglong.runs`)
	if err != nil {
		t.Fatal(err)
	}
	defer runs.Close()
	for runs.Next() {
		var id string
		var created int64
		if err := runs.Scan(&id, &created); err != nil {
			t.Fatal(err)
		}
		if created < held[id].expiresAtMs {
			t.Fatalf("trigger %s admitted at %d, before replica-a's claim expired at %d", id, created, held[id].expiresAtMs)
		}
	}
	for id, c := range held {
		var owner *string
		var version int64
		if err := env.Super.QueryRow(context.Background(), `SELECT claim_owner, claim_version FROM qinglong.trigger_schedules WHERE trigger_id = $1`, id).Scan(&owner, &version); err != nil {
			t.Fatal(err)
		}
		if owner != nil || version <= c.version {
			t.Fatalf("trigger %s: claim owner %v version %d after takeover; want cleared and past replica-a's version %d", id, owner, version, c.version)
		}
	}
	// The round's log line follows its commit: wait for it, then check
	// that it counts every admission, and no more.
	eventually(t, 10*time.Second, "replica-b to log its admitting round", func() bool { return admittedTotal(b.logs) >= triggers })
	if got := admittedTotal(b.logs); got != triggers {
		t.Fatalf("replica-b admitted %d, want %d", got, triggers)
	}
	b.signal(t, syscall.SIGTERM, 15*time.Second)
}
