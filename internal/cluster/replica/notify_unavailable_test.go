package replica

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A backend ended under the notification outbox's claim is a database the
// activation can no longer trust, as it is under any other loop's
// statement: the replica must stop scheduling and activate afresh, not
// log a failed delivery round and go on with the pool that lost it.
func TestANotificationClaimWhoseBackendIsTerminatedTakesTheReplicaOutUntilAFreshActivation(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	// No trigger: the outbox claim is the only statement of this replica
	// that reads notification_outbox.
	a := startReplica(t, bin, env, "replica-notify", "--cadence", "250ms")
	a.await(t, CodeReady, 30*time.Second)

	ctx := context.Background()
	hold, err := env.Super.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(ctx) }()
	if _, err := hold.Exec(ctx, `LOCK TABLE qinglong.notification_outbox IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var victim int32
	eventually(t, 10*time.Second, "the outbox claim waiting on the held table", func() bool {
		// Chosen and terminated in one statement, so the backend ended is
		// the one waiting under the claim at that instant.
		err := env.Super.QueryRow(ctx, `WITH victim AS MATERIALIZED (
				SELECT pid FROM pg_stat_activity
				 WHERE datname = current_database() AND application_name = $1
				   AND wait_event_type = 'Lock' AND query LIKE '%notification_outbox%'
				 LIMIT 1)
			SELECT pid FROM victim WHERE pg_terminate_backend(pid)`, "qinglong:replica-notify").Scan(&victim)
		return err == nil
	})
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("terminated backend %d, waiting under the outbox claim", victim)

	a.await(t, CodeUnavailable, 10*time.Second)
	a.await(t, CodeDeactivated, 10*time.Second)
	eventually(t, 15*time.Second, "the replica ready again on a fresh activation", func() bool {
		code, _ := a.readyz(t)
		return code == http.StatusOK && len(a.logs.withCode(CodeReady)) == 2
	})
	a.signal(t, syscall.SIGTERM, 15*time.Second)
}
