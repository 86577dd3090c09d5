package replica

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// While the database is down the replica retries at its own pace, but
// logs the first failure at once and then at most one line per
// failureLogEvery, each counting the attempts it stands for.
func TestARepeatedActivationFailureIsLoggedFirstThenAtMostOncePerPeriod(t *testing.T) {
	t.Parallel()
	// A server that accepts and at once closes every connection: each
	// activation fails on a broken link, which a retry may cure.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	// An activation may dial more than once; the retries are seen by the
	// span of time over which dials keep coming.
	var dials, firstNs, lastNs atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			now := time.Now().UnixNano()
			firstNs.CompareAndSwap(0, now)
			lastNs.Store(now)
			dials.Add(1)
			c.Close()
		}
	}()
	began := time.Now()
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: fmt.Sprintf("postgres://ql_runtime@%s/ql?sslmode=disable&connect_timeout=1", ln.Addr()),
		ReplicaID: "replica-quiet", HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", StopTimeout: 2 * time.Second}
	p := serveInProcess(t, f)
	// Backing off at most a quarter of the 1 s cadence, the replica
	// retries at least six times in 1.5 s.
	const span = 1500 * time.Millisecond
	eventually(t, 30*time.Second, "retries over 1.5 s", func() bool { return time.Duration(lastNs.Load()-firstNs.Load()) >= span })
	p.stop()
	failed, activating := p.logs.withCode(CodeActivationFailed), p.logs.withCode(CodeActivating)
	if allowed := 1 + int(time.Since(began)/failureLogEvery); len(failed) == 0 || len(failed) > allowed || len(activating) != 1 {
		t.Fatalf("%d dials logged %d failure lines and %d activating lines, want 1 to %d and 1:\n%s", dials.Load(), len(failed), len(activating), allowed, p.logs)
	}
	if failed[0]["attempt"] != 1.0 || failed[0]["failed_since_last_line"] != 1.0 {
		t.Fatalf("the first failure line %v, want attempt 1 standing for itself", failed[0])
	}
}

// The pace logs a run's first failure, then one per period counting the
// failures since the last line.
func TestTheFailurePaceLogsTheFirstThenOnePerPeriodWithTheCountSince(t *testing.T) {
	t.Parallel()
	p := failurePace{every: 10 * time.Second}
	t0 := time.Unix(1_000, 0)
	type step struct {
		at       time.Duration
		log      bool
		attempts int
	}
	for i, s := range []step{{0, true, 1}, {250 * time.Millisecond, false, 0}, {5 * time.Second, false, 0}, {9 * time.Second, false, 0},
		{10 * time.Second, true, 4}, {11 * time.Second, false, 0}, {25 * time.Second, true, 2}} {
		if log, n := p.fail(t0.Add(s.at)); log != s.log || n != s.attempts {
			t.Fatalf("failure %d at +%s: log %v standing for %d, want %v and %d", i, s.at, log, n, s.log, s.attempts)
		}
	}
}
