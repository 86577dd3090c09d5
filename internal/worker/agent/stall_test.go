package agent

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"
)

// stallFixture is a client whose replicas have answered once, and a
// worker around it, so that what a send observes goes to the log as in a
// running worker.
func stallFixture(t *testing.T) (*worker, *syncBuffer, *url.URL) {
	t.Helper()
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	c, err := NewClient("http://127.0.0.1:1", testCredential, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.reach = newReachability(log, time.Minute)
	_, base := c.server()
	c.reach.reached(base.Redacted(), time.Now().Add(-time.Hour))
	w := &worker{log: log, client: c, reqCtx: context.Background(), slots: make(chan struct{}, 4), runLease: 30 * time.Second}
	w.pace = newPacer(4, func() {})
	return w, logs, base
}

// timedOut is the error of a send whose own deadline passed.
var timedOut = &url.Error{Op: "Post", URL: "http://127.0.0.1:1/worker/v1/renew", Err: context.DeadlineExceeded}

// A send that took far longer than its own timeout was not kept waiting
// by a replica: the timeout would have ended it. The worker itself was
// stalled (SIGSTOP, a paused VM): it says so once, however many sends
// spanned the stall, reports no outage (no server_unreachable, so no
// "reachable again" after) and does not halve its share for it.
func TestAWorkerThatWasItselfStalledSaysSoOnceAndNeitherReportsAnOutageNorPaces(t *testing.T) {
	t.Parallel()
	w, logs, base := stallFixture(t)
	frozen := 42 * time.Second
	began := time.Now().Add(-frozen)
	// Every request in flight across the freeze: a renewal, a heartbeat.
	w.client.observe(context.Background(), base, timedOut, began, 10*time.Second)
	w.client.observe(context.Background(), base, timedOut, began.Add(time.Second), 10*time.Second)
	renewal := &attempt{w: w, leaseLen: 35720 * time.Millisecond}
	renewal.answered(began, timedOut)
	if limit, _, _ := w.pace.answered(0, w.runLease, false, time.Now()); limit != 4 {
		t.Errorf("after its own stall the worker takes %d commands at once, want its whole capacity of 4", limit)
	}
	said := logs.String()
	stalls := records(t, said, "worker_stalled")
	if len(stalls) != 1 || !containsAll(said, "itself stalled", "for about 42s") {
		t.Fatalf("%d worker_stalled lines for one stall; want one saying the worker itself was stalled for about 42s:\n%s", len(stalls), said)
	}
	for _, code := range []string{"server_unreachable", "server_reachable", "worker_paced"} {
		if len(records(t, said, code)) != 0 {
			t.Errorf("a stall of the worker's own was logged as %s:\n%s", code, said)
		}
	}

	// A replica that holds a send to its timeout is still an outage.
	w.client.observe(context.Background(), base, timedOut, time.Now().Add(-10100*time.Millisecond), 10*time.Second)
	if got := records(t, logs.String(), "server_unreachable"); len(got) != 1 {
		t.Fatalf("a send held to its own timeout logged %d server_unreachable lines, want 1:\n%s", len(got), logs)
	}
}

// The pacing line names the run lease the lateness is measured against,
// not the grant's own length, which counts from when the pull was sent
// and so adds the pull's long-poll wait (35.72 s reported of a 30 s
// lease): an answer later than a sixth of the run lease is late.
func TestThePacingLineMeasuresAgainstTheRunLeaseNotTheGrantsLength(t *testing.T) {
	t.Parallel()
	w, logs, _ := stallFixture(t)
	w.runLease = 12 * time.Second
	// A grant counted from a pull that waited 6 s: 18 s, whose sixth (3 s)
	// an answer of 2.5 s is within, though it is late for the 12 s lease.
	a := &attempt{w: w, leaseLen: 18 * time.Second}
	a.answered(time.Now().Add(-2500*time.Millisecond), nil)
	paced := records(t, logs.String(), "worker_paced")
	if len(paced) != 1 || paced[0]["lease_ms"] != float64(12_000) {
		t.Fatalf("worker_paced lines %v; want one naming the run lease of 12000 ms:\n%s", paced, logs)
	}
	if !strings.Contains(logs.String(), `"limit":2`) {
		t.Fatalf("the share was not halved:\n%s", logs)
	}
}

// A worker frozen past a grant's lease sends the grant's start when it
// runs again, after the stall was said: the start's own deadline, the
// lease's kill time, has passed, so it fails before any replica is asked.
// That says nothing of the replicas, so the worker does not halve its
// share for it (it said it would not: "nor takes fewer commands for it").
func TestAStartSentAfterItsLeaseHadPassedDoesNotPaceTheWorker(t *testing.T) {
	t.Parallel()
	w, logs, _ := stallFixture(t)
	sent := time.Now()
	start := &attempt{w: w, leaseLen: 30 * time.Second, killAt: sent.Add(-20 * time.Second)}
	start.answered(sent, timedOut)
	if limit, _, _ := w.pace.answered(0, w.runLease, false, time.Now()); limit != 4 {
		t.Errorf("after a start sent past its lease the worker takes %d commands at once, want its whole capacity of 4", limit)
	}
	if strings.Contains(logs.String(), "worker_paced") {
		t.Fatalf("a start sent past its lease was taken for late replicas:\n%s", logs)
	}

	// A request sent in time that no replica answered still paces.
	late := &attempt{w: w, leaseLen: 30 * time.Second, killAt: time.Now().Add(20 * time.Second)}
	late.answered(time.Now().Add(-10*time.Second), timedOut)
	if paced := records(t, logs.String(), "worker_paced"); len(paced) != 1 {
		t.Fatalf("a renewal no replica answered in time logged %d worker_paced lines, want 1:\n%s", len(paced), logs)
	}
}

// A replica that answers 503 while it re-activates its database (or
// starts, or drains) did answer: the worker's outage line says the replica
// cannot serve its requests now, naming the refusal, not that no answer
// came, which would send the operator to the network; a refused
// connection is still no answer.
func TestAReplicaThatAnswersNotReadyIsNotSaidToGiveNoAnswer(t *testing.T) {
	t.Parallel()
	w, logs, base := stallFixture(t)
	notReady := &Error{Status: 503, Code: "unavailable", Message: "this replica is not ready (starting, re-activating its database or draining)"}
	w.client.observe(context.Background(), base, notReady, time.Now(), 10*time.Second)
	lines := records(t, logs.String(), "server_unreachable")
	if len(lines) != 1 {
		t.Fatalf("%d server_unreachable lines, want 1:\n%s", len(lines), logs)
	}
	if msg, _ := lines[0]["msg"].(string); strings.Contains(msg, "no answer") || !strings.Contains(msg, "cannot serve the worker's requests now") {
		t.Errorf("a replica answering 503 is said as %q; want that it cannot serve the requests now", msg)
	}

	cut, cutLogs, cutBase := stallFixture(t)
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/worker/v1/renew", Err: errors.New("connect: connection refused")}
	cut.client.observe(context.Background(), cutBase, refused, time.Now(), 10*time.Second)
	if lines := records(t, cutLogs.String(), "server_unreachable"); len(lines) != 1 || !strings.HasPrefix(lines[0]["msg"].(string), "no answer from the replica") {
		t.Errorf("a refused connection is said as %v; want no answer from the replica", lines)
	}
}
