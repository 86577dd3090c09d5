package replica

import (
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// Every serve.activation_failed line of an outage says both why the
// connection failed (cause) and its stable code (db_code), as the guide
// promises, however the outage shows: PostgreSQL stopped fast under a
// running replica first ends its sessions (57P01) and refuses new ones as
// it shuts down (57P03), which carry a SQLSTATE but no network error, and
// is then gone (a refused TCP connection), which carries a network error
// but no SQLSTATE.
func TestEveryActivationFailureOfAnOutageSaysItsCauseAndItsCode(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	srv, env := ownServer(t)
	env.Apply(t, clustertest.Triggers("outage", 3, "* * * * * *"))
	r := startReplica(t, bin, env, "replica-outage")
	r.await(t, CodeReady, 30*time.Second)
	if err := srv.Restart(t.Context(), 3*time.Second); err != nil {
		t.Fatal(err)
	}
	env.Super.Reset()
	eventually(t, 30*time.Second, "the replica ready again after the outage", func() bool { return len(r.logs.withCode(CodeReady)) >= 2 })
	failed := r.logs.withCode(CodeActivationFailed)
	if len(failed) == 0 {
		t.Fatalf("no %s line over a 3 s outage:\n%s", CodeActivationFailed, r.logs)
	}
	for _, line := range failed {
		if cause, _ := line["cause"].(string); cause == "" {
			t.Errorf("a %s line without a cause: %v", CodeActivationFailed, line)
		}
		if code, _ := line["db_code"].(string); code == "" {
			t.Errorf("a %s line without a db_code: %v", CodeActivationFailed, line)
		}
	}
	r.signal(t, syscall.SIGTERM, 15*time.Second)
}
