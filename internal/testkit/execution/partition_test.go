package execution

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A worker cut off from every replica past its lease kills its command
// before the lease ends in database time (the command's process group is
// gone while the database still holds the lease), reports nothing more,
// and the replica declares the attempt lost once the lease passed. After
// the partition heals, the completion the worker could have sent late —
// its own credential, lease token and version — is refused and changes
// nothing.
func TestAPartitionedWorkerKillsItsCommandBeforeItsLeaseEndsAndItsLateCompletionIsRefused(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("partition", c.out(), map[string]string{"cut": holdScript + "\ntimeout: 5m"}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	proxy := startHTTPProxy(t, r.workerURL())
	w := c.newWorker(t, "worker", 4)
	wp := c.startWorker(t, w, proxy.URL(), 2)
	run := c.fire(t, "cut")
	c.awaitRun(t, run, 20*time.Second, "running")
	a := c.attempts(t, run)[0]
	pid := c.awaitPid(t, a.ID)

	proxy.Partition()
	var goneAtMs, leaseMs, version int64
	eventually(t, 10*time.Second, "the partitioned worker to kill its command", func() bool {
		if !processGone(pid) {
			return false
		}
		// Read after the process was seen gone: an upper bound of when it died.
		if err := c.env.Super.QueryRow(context.Background(), `SELECT `+pgstore.ClockMsSQL+`, lease_expires_at_ms, lease_version
			FROM qinglong.attempts WHERE id = $1`, a.ID).Scan(&goneAtMs, &leaseMs, &version); err != nil {
			t.Fatal(err)
		}
		return true
	})
	if goneAtMs >= leaseMs {
		t.Fatalf("the command was gone at %d, not before its lease ended at %d (database time)", goneAtMs, leaseMs)
	}
	wp.awaitLog(t, "attempt_lease_lost", 1, 5*time.Second)
	c.awaitRun(t, run, 20*time.Second, "lost")
	before := c.runFacts(t, run)

	proxy.Heal()
	code := int64(0)
	late := workerproto.CompleteRequest{Lease: workerproto.Lease{AttemptID: a.ID, Token: c.journalToken(t, w, a.ID), LeaseVersion: version},
		Outcome: workerproto.OutcomeExited, ExitCode: &code}
	status, raw := postWorker(t, proxy.URL()+workerproto.PathComplete, w.credential, late)
	var e workerproto.Error
	if err := json.Unmarshal(raw, &e); err != nil || status != http.StatusConflict || e.Code != workerproto.CodeFenced {
		t.Fatalf("late completion: %d %s, want 409 %s", status, raw, workerproto.CodeFenced)
	}
	if after := c.runFacts(t, run); after != before {
		t.Fatalf("the refused completion changed the Run:\nbefore %s\nafter  %s", before, after)
	}
}
