package pgstore

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// shopEnv is a project env in task.EncodeEnv's form.
const shopEnv = `[{"name":"REGION","value":"cn-east"}]`

// newReadingWorker is newWorker whose session reads the grant fields
// reads, as a worker of this build registers (workerproto.Reads()).
func (s *store) newReadingWorker(t *testing.T, name string, capacity int, reads ...string) worker {
	t.Helper()
	w := s.newWorker(t, name, nil, capacity)
	reply, err := s.runtime.RegisterWorker(t.Context(), w.WorkerIdentity,
		workerproto.RegisterRequest{Capacity: capacity, Version: "test", Reads: reads}, testSettings)
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	w.session = reply.SessionID
	return w
}

// setProjectEnv gives project projectID the env env, as an apply of its
// top-level env: does.
func (s *store) setProjectEnv(t *testing.T, projectID, env string) {
	t.Helper()
	s.exec(t, `UPDATE qinglong.projects SET env = $2 WHERE id = $1`, projectID, env)
}

// A worker that did not say it reads project env (a registration without
// reads, as a worker built before them sends) is never granted a Run of a
// project with an env, while a worker that reads it is, with the env.
func TestAWorkerThatDoesNotReadProjectEnvIsNeverGrantedARunOfAProjectWithEnv(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, shopRuns := s.admitRuns(t, "shop", 3)
	s.setProjectEnv(t, shop, shopEnv)
	old := s.newWorker(t, "old", nil, 8)
	if _, grants := s.pull(t, old, 8); len(grants) != 0 {
		t.Fatalf("the old worker was granted %d Runs of a project with an env (first of %s); want none", len(grants), grants[0].Project)
	}
	fresh := s.newReadingWorker(t, "new", 8, workerproto.Reads()...)
	_, grants := s.pull(t, fresh, 8)
	if len(grants) != len(shopRuns) {
		t.Fatalf("the worker reading project env was granted %d Runs, want %d", len(grants), len(shopRuns))
	}
	for _, g := range grants {
		if g.ProjectEnv != shopEnv {
			t.Fatalf("grant of %s carries env %q, want %q", g.RunID, g.ProjectEnv, shopEnv)
		}
	}
	s.checkRunHistories(t)
}

// A worker that does not read project env still gets the Runs of projects
// without one, passing over those of a project with an env queued before
// them; a worker naming only fields this replica does not know reads none.
func TestAWorkerThatDoesNotReadProjectEnvGetsTheRunsOfProjectsWithoutEnv(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, _ := s.admitRuns(t, "shop", 3)
	s.setProjectEnv(t, shop, shopEnv)
	_, plain := s.admitRuns(t, "plain", 2)
	old := s.newReadingWorker(t, "old", 8, "someFutureField")
	_, grants := s.pull(t, old, 8)
	got := runIDs(grants)
	if len(grants) != 2 || !got[plain["t000"]] || !got[plain["t001"]] {
		t.Fatalf("the old worker was granted %v, want the 2 Runs of the project without env", got)
	}
}

// A project that gains an env after its Run was queued: the env at the
// moment of the grant counts, so the Run, queued while the project had
// none, is no longer given to a worker that does not read it, and the
// worker that does gets the env the project has now.
func TestARunQueuedBeforeItsProjectGainedAnEnvGoesOnlyToAWorkerThatReadsIt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, runs := s.admitRuns(t, "shop", 1)
	old := s.newWorker(t, "old", nil, 8)
	s.setProjectEnv(t, shop, shopEnv)
	if _, grants := s.pull(t, old, 8); len(grants) != 0 {
		t.Fatalf("the old worker was granted %d Runs after their project gained an env; want none", len(grants))
	}
	fresh := s.newReadingWorker(t, "new", 8, workerproto.ReadProjectEnv)
	_, grants := s.pull(t, fresh, 8)
	if len(grants) != 1 || grants[0].RunID != runs["t000"] || grants[0].ProjectEnv != shopEnv {
		t.Fatalf("grants %+v, want run %s with env %q", grants, runs["t000"], shopEnv)
	}
}

// A queued Run of a project with an env whose only live workers carrying
// its labels do not read project env says so (workers_too_old, naming the
// field and counting them), and the reason is gone once a worker that
// reads it connects.
func TestARunWaitingForAWorkerThatReadsProjectEnvSaysSoUntilOneConnects(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, runs := s.admitRuns(t, "shop", 1)
	s.setProjectEnv(t, shop, shopEnv)
	s.newWorker(t, "old", nil, 8)
	w := s.waitingOf(t, runs["t000"])
	if w == nil || w.Reason != run.WaitWorkersTooOld || w.Workers != 1 || w.Reads != workerproto.ReadProjectEnv {
		t.Fatalf("waiting %+v, want %s on 1 worker for %s", w, run.WaitWorkersTooOld, workerproto.ReadProjectEnv)
	}
	if !w.ForWantOfAWorker() {
		t.Fatalf("%s is not said to the person who queued the Run", w.Reason)
	}
	s.newReadingWorker(t, "new", 8, workerproto.ReadProjectEnv)
	if w := s.waitingOf(t, runs["t000"]); w != nil {
		t.Fatalf("with a worker reading project env connected the Run waits %+v, want nothing", w)
	}
}

// The unplaceable count takes in the queued Runs of a project with an env
// while no live worker carrying their labels reads project env (they wait
// with workers_too_old as surely as for missing labels), and lets them go
// once a worker that reads it connects; a Run of a project without env is
// not counted while such an older worker could take it.
func TestTheUnplaceableCountTakesInTheRunsWaitingForAWorkerThatReadsProjectEnv(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, _ := s.admitRuns(t, "shop", 2)
	s.setProjectEnv(t, shop, shopEnv)
	s.admitRuns(t, "plain", 3)
	count := func() int {
		t.Helper()
		n, err := s.runtime.UnplaceableRuns(t.Context(), 100)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	s.newWorker(t, "old", nil, 8)
	if n := count(); n != 2 {
		t.Fatalf("with only a worker that does not read project env: %d unplaceable, want the 2 Runs of the project with an env", n)
	}
	s.newReadingWorker(t, "new", 8, workerproto.ReadProjectEnv)
	if n := count(); n != 0 {
		t.Fatalf("with a worker reading project env: %d unplaceable, want 0", n)
	}
}

// `ql workers list` shows the grant fields each worker's live session
// reads: none for a worker built before them, projectEnv for one of this
// build, nothing while no process runs.
func TestTheWorkersListShowsWhichWorkersReadProjectEnv(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.newWorker(t, "old", nil, 1)
	s.newReadingWorker(t, "new", 1, workerproto.Reads()...)
	if _, err := s.admin.WorkerCreate(t.Context(), "idle", nil, 1); err != nil {
		t.Fatal(err)
	}
	list, err := s.admin.WorkerList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, w := range list {
		got[w.Name] = w.Reads()
	}
	if got["idle"] != nil || got["old"] == nil || len(got["old"]) != 0 || !slices.Equal(got["new"], []string{workerproto.ReadProjectEnv}) {
		t.Fatalf("reads %q; want idle nil, old [], new [%s]", got, workerproto.ReadProjectEnv)
	}
}

// TestDispatchNeverWalksTheRunsOfAProjectWithEnvForAWorkerThatDoesNotReadIt
// queues 5,000 Runs of a project with an env ahead of 10 of a project
// without, and has a worker that does not read project env pull: it must
// find the 10 without reading the backlog it cannot take (the project is
// read once per task revision, not per Run).
func TestDispatchNeverWalksTheRunsOfAProjectWithEnvForAWorkerThatDoesNotReadIt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, runs := s.admitRuns(t, "shop", 1)
	s.setProjectEnv(t, shop, shopEnv)
	s.queueBacklog(t, dispatchBacklog{of: runs["t000"]})
	s.admitRuns(t, "plain", 10)
	s.exec(t, `ANALYZE`)
	old := s.newWorker(t, "old", nil, 8)
	s.pullSkipsTheBacklog(t, old, "beside 5,000 runs of a project with an env queued")
	s.pullWalksTheBacklogOnce(t, old, "without the index", `DROP INDEX qinglong.runs_queued_revision_idx`)
}

// A queued Run of a project with an env whose only live workers carrying
// its labels do not read project env is noted once, workers_too_old,
// naming the field and counting those workers; a Run such a worker can
// take (its project has no env) is not noted.
func TestARunNoWorkerReadingProjectEnvCanTakeIsNotedWorkersTooOld(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	shop, runs := s.admitRuns(t, "shop", 1)
	s.setProjectEnv(t, shop, shopEnv)
	_, plain := s.admitRuns(t, "plain", 1)
	s.queuedAgo(t, WaitingNoteGrace)
	s.newReadingWorker(t, "old", 1)
	if n := s.sweepNoting(t); n != 1 {
		t.Fatalf("the sweep noted %d Runs, want the 1 of the project with an env", n)
	}
	notes, names := s.waitingNotes(t, runs["t000"])
	if len(notes) != 1 || notes[0].Reason != run.WaitWorkersTooOld || notes[0].Workers != 1 || notes[0].Reads != workerproto.ReadProjectEnv {
		t.Fatalf("run.waiting notes %+v (events %v), want one %s for %s on 1 worker", notes, names, run.WaitWorkersTooOld, workerproto.ReadProjectEnv)
	}
	if notes, _ := s.waitingNotes(t, plain["t000"]); len(notes) != 0 {
		t.Fatalf("the Run of the project without env was noted %+v, want nothing", notes)
	}
}
