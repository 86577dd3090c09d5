package pgstore

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

func TestPullGrantsOldestQueuedRunsUpToTheFreeSlots(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "slots", 5)
	w := s.newWorker(t, "w1", nil, 3)
	_, grants := s.pull(t, w, 10)
	if len(grants) != 3 {
		t.Fatalf("granted %d with 3 free slots, want 3", len(grants))
	}
	var oldest []string
	if err := s.super.QueryRow(t.Context(), `SELECT array_agg(id::text ORDER BY id) FROM (SELECT id FROM qinglong.runs ORDER BY id LIMIT 3) r`).Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	for _, g := range grants {
		if !slices.Contains(oldest, g.RunID) {
			t.Errorf("granted run %s, not among the 3 oldest %v", g.RunID, oldest)
		}
		if g.LeaseVersion != 1 || g.LeaseMs <= 0 || g.Project != "slots" || g.Task != "job" || len(g.Command) == 0 || g.Digest == "" {
			t.Errorf("grant %+v", g)
		}
		// The worker decodes the command it is granted as the codec
		// stored it.
		c, err := task.DecodeCommand(g.Command)
		if err != nil || c.Mode != task.ModeShell || c.Script != "echo hi" {
			t.Errorf("granted command %s decodes to %+v, %v", g.Command, c, err)
		}
		// ... and verifies it against the digest with the ids the grant
		// names, as the worker does before running it.
		rev, contentDigest, err := task.ParseExecutionID(g.ExecutionID)
		e := task.Execution{ID: g.ExecutionID, ProjectID: g.ProjectID, TaskID: g.TaskID, TaskRevision: rev, TaskContentDigest: contentDigest,
			Executor: task.RemoteWorker, Command: c, Digest: g.Digest}
		if err != nil || e.Verify(rev, contentDigest, task.RemoteWorker) != nil {
			t.Errorf("grant %+v does not verify: %v, %v", g, err, e.Verify(rev, contentDigest, task.RemoteWorker))
		}
		if state, _ := s.runState(t, g.RunID); state != "dispatching" {
			t.Errorf("granted run is %s, want dispatching", state)
		}
	}
	if _, more := s.pull(t, w, 10); len(more) != 0 {
		t.Fatalf("a full session got %d more grants", len(more))
	}
	var digest string
	var rawToken *string
	if err := s.super.QueryRow(t.Context(), `SELECT lease_token_sha256, lease_token::text FROM qinglong.attempts WHERE id = $1`, grants[0].AttemptID).Scan(&digest, &rawToken); err != nil {
		t.Fatal(err)
	}
	if rawToken != nil || len(digest) != 64 {
		t.Fatalf("stored lease token %v, digest %q: only the digest may be stored", rawToken, digest)
	}
	if len(runs) != 5 {
		t.Fatal(runs)
	}
	s.checkRunHistories(t)
}

func TestPullReplayReturnsTheSameGrant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "replay", 4)
	w := s.newWorker(t, "w1", nil, 8)
	req, first := s.pull(t, w, 2)
	if len(first) != 2 {
		t.Fatalf("granted %d, want 2", len(first))
	}
	// The reply was lost: the worker sends the same offer again.
	again, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, req, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Grants) != 2 || again.Grants[0].AttemptID != first[0].AttemptID || again.Grants[1].AttemptID != first[1].AttemptID {
		t.Fatalf("replay granted %+v, want the same two grants %+v", again.Grants, first)
	}
	// Once one grant started, the replay returns only the unstarted one.
	if _, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: lease(req, first[0])}, testSettings); err != nil {
		t.Fatal(err)
	}
	again, err = s.runtime.PullGrants(t.Context(), w.WorkerIdentity, req, testSettings)
	if err != nil || len(again.Grants) != 1 || again.Grants[0].AttemptID != first[1].AttemptID {
		t.Fatalf("replay after a start: %+v, %v; want only the unstarted grant", again.Grants, err)
	}
	// The same offer id under another token is refused.
	other := w.offer(t, 2)
	other.OfferID = req.OfferID
	if _, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, other, testSettings); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("offer replayed with another token: %v, want conflict", err)
	}
	var dispatching int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.runs WHERE state IN ('dispatching', 'running')`).Scan(&dispatching); err != nil {
		t.Fatal(err)
	}
	if dispatching != 2 {
		t.Fatalf("%d runs left queued → dispatching/running, want the 2 granted", dispatching)
	}
	s.checkRunHistories(t)
}

func TestPullNeverGrantsOneAttemptTwiceUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const runs = 40
	s.admitRuns(t, "race", runs)
	granted := map[string]int{}
	for _, g := range s.pullAtOnce(t, s.newWorkers(t, 4), 3, 10) {
		granted[g.AttemptID]++
	}
	if len(granted) != runs {
		t.Fatalf("%d attempts granted, want all %d", len(granted), runs)
	}
	for id, n := range granted {
		if n != 1 {
			t.Fatalf("attempt %s granted %d times", id, n)
		}
	}
	s.checkRunHistories(t)
}

// newWorkers registers n workers, w1 to wn, each with every slot free.
func (s *store) newWorkers(t *testing.T, n int) []worker {
	t.Helper()
	workers := make([]worker, n)
	for i := range workers {
		workers[i] = s.newWorker(t, fmt.Sprintf("w%d", i+1), nil, workerproto.MaxCapacity)
	}
	return workers
}

// pullAtOnce has every worker pull from inFlight goroutines at once, each
// sending pulls pulls that ask for up to three Runs, and returns every
// grant they got.
func (s *store) pullAtOnce(t *testing.T, workers []worker, inFlight, pulls int) []workerproto.Grant {
	t.Helper()
	var mu sync.Mutex
	var granted []workerproto.Grant
	var wg sync.WaitGroup
	for _, w := range workers {
		for range inFlight {
			wg.Go(func() {
				for range pulls {
					reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, w.offer(t, 3), testSettings)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					granted = append(granted, reply.Grants...)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return granted
}

func TestPlacementLabelsFilterDispatch(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	gpuProject, gpuRuns := s.admitRuns(t, "gpu", 2)
	s.setCommand(t, gpuProject, map[string]any{"placement": map[string]any{"labels": map[string]string{"gpu": "a100", "zone": "eu"}}})
	_, anyRuns := s.admitRuns(t, "anywhere", 2)
	plain := s.newWorker(t, "plain", map[string]string{"zone": "eu"}, 8)
	_, grants := s.pull(t, plain, 8)
	if got := runIDs(grants); len(got) != 2 || !got[anyRuns["t000"]] || !got[anyRuns["t001"]] {
		t.Fatalf("a worker without gpu got %v, want only the 2 unplaced runs", got)
	}
	// Labels of the credential and of the registration count together.
	gpu := s.newWorker(t, "gpu-box", map[string]string{"zone": "eu"}, 8)
	gpu.session = s.register(t, gpu, 8, map[string]string{"gpu": "a100"}).SessionID
	_, grants = s.pull(t, gpu, 8)
	if got := runIDs(grants); len(got) != 2 || !got[gpuRuns["t000"]] || !got[gpuRuns["t001"]] {
		t.Fatalf("the gpu worker got %v, want the 2 placed runs", got)
	}
}

func TestSessionsNotActiveGetNoGrants(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "idle", 2)
	w := s.newWorker(t, "w1", nil, 4)
	replaced := w
	w.session = s.register(t, w, 4, nil).SessionID
	if reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, replaced.offer(t, 4), testSettings); err != nil || reply.State != workerproto.SessionReplaced || len(reply.Grants) != 0 {
		t.Fatalf("replaced session: %+v, %v", reply, err)
	}
	if err := s.admin.WorkerDrain(t.Context(), "w1"); err != nil {
		t.Fatal(err)
	}
	if reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, w.offer(t, 4), testSettings); err != nil || reply.State != workerproto.SessionDraining || len(reply.Grants) != 0 {
		t.Fatalf("draining worker: %+v, %v", reply, err)
	}
	hb, err := s.runtime.HeartbeatWorker(t.Context(), w.WorkerIdentity, workerproto.HeartbeatRequest{SessionID: w.session})
	if err != nil || hb.State != workerproto.SessionDraining {
		t.Fatalf("heartbeat of a drained worker: %+v, %v", hb, err)
	}
	// A session whose lease passed is expired, even before a sweep.
	other := s.newWorker(t, "w2", nil, 4)
	s.exec(t, `UPDATE qinglong.worker_sessions SET lease_expires_at_ms = heartbeat_at_ms + 1 WHERE id = $1`, other.session)
	if reply, err := s.runtime.PullGrants(t.Context(), other.WorkerIdentity, other.offer(t, 4), testSettings); err != nil || reply.State != workerproto.SessionExpired || len(reply.Grants) != 0 {
		t.Fatalf("expired session: %+v, %v", reply, err)
	}
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.SessionsExpired != 1 {
		t.Fatalf("sweep %+v, %v; want the one expired session marked", res, err)
	}
	var queued int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.runs WHERE state = 'queued'`).Scan(&queued); err != nil || queued != 2 {
		t.Fatalf("%d runs still queued (%v), want both", queued, err)
	}
}
