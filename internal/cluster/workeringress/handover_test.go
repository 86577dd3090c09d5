package workeringress

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// agentProc is a real worker running in the test until stopped.
type agentProc struct {
	logs    *syncBuffer
	cancel  context.CancelFunc
	done    chan struct{}
	summary agent.Summary
	err     error
}

// startAgent runs a real worker against server with concurrency slots and
// a pull that may wait pullWait, and waits until it registered.
func startAgent(t *testing.T, server, cred string, concurrency int, pullWait time.Duration) *agentProc {
	t.Helper()
	p := &agentProc{logs: &syncBuffer{}, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	dir := t.TempDir() // before the goroutine: removed only after the stop below
	go func() {
		defer close(p.done)
		p.summary, p.err = agent.Run(ctx, agent.Config{Server: server, Credential: cred, DataDir: dir, Concurrency: concurrency,
			StopTimeout: 5 * time.Second, PullWait: pullWait, BaseEnv: []string{"PATH=/usr/bin:/bin"},
			Logger: slog.New(slog.NewJSONHandler(p.logs, nil))})
	}()
	t.Cleanup(func() {
		cancel()
		<-p.done
	})
	eventually(t, 20*time.Second, "the worker to register", func() bool { return p.logs.count("worker_registered") == 1 })
	return p
}

// stop stops the worker as SIGTERM does and waits for it to exit.
func (p *agentProc) stop(t *testing.T) {
	t.Helper()
	p.cancel()
	p.exited(t, 30*time.Second)
	if p.err != nil {
		t.Fatalf("the worker stopped with %v\n%s", p.err, p.logs)
	}
}

// exited waits up to within for the worker to exit.
func (p *agentProc) exited(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		t.Fatalf("the worker is still running after %s\n%s", within, p.logs)
	}
}

// runOf is the id, state and latest event of project's one Run.
func (f *fixture) runOf(t *testing.T, project string) (id, state, event, reason string) {
	t.Helper()
	err := f.env.Super.QueryRow(t.Context(), `SELECT r.id::text, r.state, e.name, coalesce(e.payload ->> 'reason', '')
		FROM qinglong.runs r JOIN qinglong.projects p ON p.id = r.project_id
		JOIN qinglong.run_events e ON e.run_id = r.id AND e.seq = r.last_event_seq WHERE p.name = $1`, project).Scan(&id, &state, &event, &reason)
	if err != nil {
		t.Fatal(err)
	}
	return id, state, event, reason
}

// A worker stopped (SIGTERM) just as the replica granted it a Run whose
// grant it never saw (the pull's reply was lost) ends its session, and
// the Run goes back to the queue at that moment, its event saying why: a
// second worker runs it at once, not when the grant's 30 s lease passes.
// The grant was never started, so nothing of it ran on the first worker.
func TestAWorkerThatStopsHoldingAGrantItNeverSawGivesTheRunBackAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{}) // a 30 s run lease
	p := newProxy(t, f.url, nil)
	p.swallowGrants.Store(true)
	leaving := startAgent(t, p.url, f.worker(t, "leaving"), 1, time.Second)
	f.admitDefinitions(t, f.rt, "handover", scriptTask("handover", "echo handed over"), 1, f.h.Wake)
	select {
	case <-p.swallowed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no pull reply carried the grant\n%s", leaving.logs)
	}
	if _, state, _, _ := f.runOf(t, "handover"); state != "dispatching" {
		t.Fatalf("the Run is %s, want dispatching under the lost grant", state)
	}
	leaseEnd := f.now(t) + 30_000

	stopped := time.Now()
	leaving.stop(t)
	eventually(t, 5*time.Second, "the Run to be queued again when the worker ended its session", func() bool {
		_, state, _, _ := f.runOf(t, "handover")
		return state == "queued"
	})
	queuedAfter := time.Since(stopped)
	if _, _, event, reason := f.runOf(t, "handover"); event != "run.queued" || reason != pgstore.ReleasedSessionEnded {
		t.Fatalf("the Run's last event is %s (reason %q), want run.queued because the session ended", event, reason)
	}
	if !strings.Contains(leaving.logs.String(), `"released":1`) {
		t.Errorf("the worker's session_ended line does not count the grant given back:\n%s", leaving.logs)
	}

	startAgent(t, f.url, f.worker(t, "taking"), 1, time.Second)
	a := f.ended(t, "handover")
	ranAfter := time.Since(stopped)
	if a.state != "succeeded" || f.log(t, a.id) != "handed over\n" {
		t.Fatalf("attempt %+v, log %q; want the same attempt run once by the second worker", a, f.log(t, a.id))
	}
	if f.now(t) >= leaseEnd {
		t.Fatalf("the Run ran only after the lost grant's lease passed (%s after the stop)", ranAfter)
	}
	t.Logf("from the first worker's stop: Run queued again after %s, run by the second worker after %s (the lease had %s left)",
		queuedAfter.Round(time.Millisecond), ranAfter.Round(time.Millisecond), time.Duration(leaseEnd-f.now(t))*time.Millisecond)
}

// A newer session of a worker's credential replaces it: the worker stops
// (its commands killed, exit ErrReplaced) at the first reply that can tell
// it — its waiting pull, answered at once since the registration wakes the
// pulls of every replica, or, when every slot is busy and no pull waits,
// its next renewal — not at its next heartbeat, 10 s away.
func TestAReplacedWorkerStopsAtItsWaitingPullOrNextRenewalNotItsNextHeartbeat(t *testing.T) {
	t.Parallel()
	// The newer session registers through another replica.
	replace := func(t *testing.T, f *fixture, cred string, w *agentProc) time.Duration {
		t.Helper()
		other := f.env.Runtime(t, "other-replica", 30*time.Second)
		id, err := other.AuthenticateWorker(t.Context(), cred)
		if err != nil {
			t.Fatal(err)
		}
		replaced := time.Now()
		if _, err := other.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 1, Version: "test"}, pgstore.WorkerSettings{}); err != nil {
			t.Fatal(err)
		}
		w.exited(t, 30*time.Second)
		if !errors.Is(w.err, agent.ErrReplaced) {
			t.Fatalf("the worker stopped with %v, want ErrReplaced\n%s", w.err, w.logs)
		}
		// Until the worker's line saying it heard, not until it returned:
		// killing its command and ending take a loaded machine longer.
		return w.logs.loggedAt(t, "session_replaced").Sub(replaced)
	}
	t.Run("a worker with a free slot, its pull waiting", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.listen(t)
		cred := f.worker(t, "idle")
		w := startAgent(t, f.url, cred, 1, workerproto.MaxPullWait)
		eventually(t, 10*time.Second, "the worker's pull to wait", func() bool { return f.logs.count(CodePullWaiting) > 0 })
		// A third of the 10 s to its next heartbeat, which a worker told
		// only then would mostly outlast.
		took := replace(t, f, cred, w)
		if took > 3*time.Second {
			t.Fatalf("the replaced worker heard of it %s after the replacement; its waiting pull should have told it at once", took)
		}
		t.Logf("an idle worker heard of its replacement %s after it", took.Round(time.Millisecond))
	})
	t.Run("a worker whose every slot is busy", func(t *testing.T) {
		t.Parallel()
		// A 3 s lease: renewals every second, heartbeats every 10 s.
		f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 3 * time.Second, LogCap: workerproto.DefaultLogCap}})
		cred := f.worker(t, "busy")
		w := startAgent(t, f.url, cred, 1, time.Second)
		f.admitDefinitions(t, f.rt, "busy", scriptTask("busy", "sleep 60"), 1, f.h.Wake)
		eventually(t, 20*time.Second, "the command to start", func() bool { return w.logs.count("attempt_started") == 1 })
		took := replace(t, f, cred, w)
		if took > 3*time.Second {
			t.Fatalf("the replaced worker heard of it %s after the replacement; its next renewal (every second) should have told it", took)
		}
		if w.summary.Killed != 1 {
			t.Fatalf("summary %+v, want its one command killed", w.summary)
		}
		t.Logf("a busy worker heard of its replacement %s after it", took.Round(time.Millisecond))
	})
}
