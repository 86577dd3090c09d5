package execution

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// echoTask appends the attempt id to $OUT/ids and ends.
const echoTask = `script: echo "$QL_ATTEMPT_ID" >> "$OUT/ids"
timeout: 1m`

// The reply to the pull that carried a grant is lost after the replica
// committed it; the worker's retry (same offer id and token) gets that
// same grant: the Run has one Attempt, dispatched once, run once.
func TestALostPullReplyIsAnsweredWithTheSameGrantOnRetry(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("replay", c.out(), map[string]string{"echo": echoTask}))
	r := c.startReplica(t, "replica", "", "")
	proxy := startHTTPProxy(t, r.workerURL())
	w := c.newWorker(t, "worker", 4)
	c.startWorker(t, w, proxy.URL(), 1)
	lost := proxy.ArmReplyLoss(workerproto.PathPull, func(body []byte) bool { return strings.Contains(string(body), `"attemptId"`) })
	run := c.fire(t, "echo")
	var reply workerproto.PullReply
	select {
	case l := <-lost:
		if err := json.Unmarshal(l.Body, &reply); err != nil || l.Status != http.StatusOK || len(reply.Grants) != 1 {
			t.Fatalf("lost pull reply %d %s, want one grant", l.Status, l.Body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no pull reply with a grant was lost")
	}
	c.awaitRun(t, run, 20*time.Second, "succeeded")
	as := c.attempts(t, run)
	if len(as) != 1 || as[0].ID != reply.Grants[0].AttemptID || as[0].LeaseVersion == nil {
		t.Fatalf("attempts %+v, want only the lost reply's grant %s", as, reply.Grants[0].AttemptID)
	}
	if n := c.events(t, run, "run.dispatching"); n != 1 {
		t.Fatalf("%d dispatching events, want 1", n)
	}
	if ids := readLines(t, filepath.Join(c.out(), "ids")); len(ids) != 1 || ids[0] != as[0].ID {
		t.Fatalf("executions %v, want %s once", ids, as[0].ID)
	}
}

// The reply to an accepted completion is lost; the worker sends the same
// completion again and gets the same answer: one completion event, the
// Attempt's end recorded once.
func TestALostCompletionReplyIsAnsweredWithTheSameCompletionOnRetry(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("replay", c.out(), map[string]string{"echo": echoTask}))
	r := c.startReplica(t, "replica", "", "")
	proxy := startHTTPProxy(t, r.workerURL())
	w := c.newWorker(t, "worker", 4)
	wp := c.startWorker(t, w, proxy.URL(), 1)
	lost := proxy.ArmReplyLoss(workerproto.PathComplete, nil)
	run := c.fire(t, "echo")
	var first workerproto.CompleteReply
	select {
	case l := <-lost:
		if err := json.Unmarshal(l.Body, &first); err != nil || l.Status != http.StatusOK || first.RunState != "succeeded" {
			t.Fatalf("lost completion reply %d %s, want the succeeded Run", l.Status, l.Body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no completion reply was lost")
	}
	wp.awaitLog(t, "attempt_completed", 1, 20*time.Second)
	if n := proxy.Forwarded(workerproto.PathComplete); n != 2 {
		t.Fatalf("%d completions reached the replica, want the lost one and its replay", n)
	}
	if !strings.Contains(tail(wp.logPath, 20), `"attempt_state":"succeeded","run_state":"succeeded"`) {
		t.Fatalf("the replayed completion's answer differs from the first (%+v):\n%s", first, tail(wp.logPath, 20))
	}
	if n := c.events(t, run, "run.succeeded"); n != 1 || c.runState(t, run) != "succeeded" {
		t.Fatalf("%d succeeded events, Run %s; want one completion", n, c.runState(t, run))
	}
	if as := c.attempts(t, run); len(as) != 1 || as[0].State != "succeeded" {
		t.Fatalf("attempts %+v", as)
	}
}
