package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// capProject sets the named project's maxRunning, as an apply does.
func (s *store) capProject(t *testing.T, name string, maxRunning int) {
	t.Helper()
	p, err := s.admin.ProjectByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	p.MaxRunning = maxRunning
	if _, err := s.admin.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// perProject counts grants by project.
func perProject(grants []workerproto.Grant) map[string]int {
	n := map[string]int{}
	for _, g := range grants {
		n[g.Project]++
	}
	return n
}

// Six workers pulling at once, twelve pulls in flight, never grant a
// project capped at maxRunning 3 more than 3 Runs, though its 30 queued
// Runs are older than the other project's and the workers have slots to
// spare: they take the other project's 10 Runs instead. Once the capped
// project's three end, pulling at once again grants exactly three more.
func TestManyWorkersPullingAtOnceNeverExceedAProjectsCap(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "team", 30)
	s.capProject(t, "team", 3)
	s.admitRuns(t, "other", 10)
	workers := s.newWorkers(t, 6)
	if got := perProject(s.pullAtOnce(t, workers, 2, 6)); got["team"] != 3 || got["other"] != 10 {
		t.Fatalf("pulling at once granted %v; want team 3 (its maxRunning) and other all 10", got)
	}
	if n := s.holding(t, "team"); n != 3 {
		t.Fatalf("team holds %d slots; want 3", n)
	}
	s.exec(t, `UPDATE qinglong.runs SET state = 'succeeded', finished_at_ms = `+ClockMsSQL+`
		WHERE state = 'dispatching' AND project_id = (SELECT id FROM qinglong.projects WHERE name = 'team')`)
	if got := perProject(s.pullAtOnce(t, workers, 2, 6)); got["team"] != 3 {
		t.Fatalf("once its three ended, pulling at once granted team %d; want 3 more", got["team"])
	}
}

// holding counts the named project's Runs holding a slot.
func (s *store) holding(t *testing.T, name string) int {
	t.Helper()
	var n int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.runs r JOIN qinglong.projects p ON p.id = r.project_id
		WHERE p.name = $1 AND r.state IN ('dispatching', 'running')`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pullOpen is w's pull in a transaction left open for the caller to end.
func (s *store) pullOpen(t *testing.T, w worker, maxGrants int) (pgx.Tx, workerproto.PullReply, error) {
	req := w.offer(t, maxGrants)
	digest, err := leaseTokenDigest(req.Token)
	if err != nil {
		t.Fatal(err)
	}
	settings, err := testSettings.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.runtime.pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s.runtime.pullIn(t.Context(), tx, w.WorkerIdentity, req, digest, settings)
	return tx, reply, err
}

// republishAndAdmit applies file, a new revision of project's task, and
// admits one Run of each of its n triggers (admitDue).
func (s *store) republishAndAdmit(t *testing.T, projectID, file string, n int) {
	t.Helper()
	doc, err := apply.Parse("team.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: s.admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	if _, err := apply.Apply(t.Context(), svc, doc, ids.New); err != nil {
		t.Fatalf("apply: %v", err)
	}
	s.admitDue(t, "project_id", projectID, n)
}

// A pull that may grant a capped project's Runs while another pull's
// grant of them is not yet committed waits for that one to commit, and
// then sees its grants. The two workers match different Runs of the
// project (the older placed on region=a, the newer anywhere), so without
// the wait the second, counting what its snapshot saw before the first
// committed, would take three more, twice the cap; with it, it takes
// none. The wait is proved: the second pull is seen waiting on the
// project's lock before the first commits.
func TestAPullWaitsForAnotherGrantingACappedProjectAndCountsItsGrants(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	teamID, _ := s.admitRuns(t, "team", 3)
	s.setCommand(t, teamID, map[string]any{"placement": map[string]any{"labels": map[string]string{"region": "a"}}})
	s.republishAndAdmit(t, teamID, "project: team\nmaxRunning: 3\ntasks:\n  - name: job\n    script: echo again\ntriggers:\n"+
		"  - {name: t000, task: job, cron: \"* * * * *\", timezone: UTC}\n  - {name: t001, task: job, cron: \"* * * * *\", timezone: UTC}\n"+
		"  - {name: t002, task: job, cron: \"* * * * *\", timezone: UTC}\n", 3)
	anywhere := s.newWorker(t, "w-b", map[string]string{"region": "b"}, workerproto.MaxCapacity)
	placed := s.newWorker(t, "w-a", map[string]string{"region": "a"}, workerproto.MaxCapacity)
	first, reply, err := s.pullOpen(t, anywhere, 6)
	if err != nil || len(reply.Grants) != 3 {
		t.Fatalf("the first pull: %d grants, %v; want 3, the cap", len(reply.Grants), err)
	}
	type result struct {
		grants int
		err    error
	}
	second := make(chan result, 1)
	go func() {
		tx, reply, err := s.pullOpen(t, placed, 6)
		if err == nil {
			err = tx.Commit(t.Context())
		} else {
			_ = tx.Rollback(t.Context())
		}
		second <- result{len(reply.Grants), err}
	}()
	waiting := false
	for limit := time.Now().Add(30 * time.Second); !waiting && time.Now().Before(limit); {
		select {
		case r := <-second:
			_ = first.Rollback(t.Context())
			t.Fatalf("the second pull ended while the first's grant was uncommitted: %d grants, %v; want it to wait for the project's lock", r.grants, r.err)
		case <-time.After(10 * time.Millisecond):
		}
		if err := s.super.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 1903915873 AND NOT granted)`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if !waiting {
		t.Fatal("the second pull was never seen waiting on the project's lock")
	}
	if err := first.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := <-second; r.err != nil || r.grants != 0 {
		t.Fatalf("the second pull, after the first committed: %d grants, %v; want none (team runs its maxRunning 3)", r.grants, r.err)
	}
	if n := s.holding(t, "team"); n != 3 {
		t.Fatalf("team holds %d slots; want 3", n)
	}
}

// A queued Run of a project running its maxRunning Runs, read while a
// worker has free slots, says it waits for its project, with how many run
// of how many and the triggers holding its share; another project's Run
// read then says nothing (the next pull takes it), and once the project's
// Run ends the Run waits no more.
func TestAQueuedRunOfAProjectAtItsCapSaysItWaitsForItsProject(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "team", 2)
	s.capProject(t, "team", 1)
	w := s.newWorker(t, "w1", nil, 8)
	_, grants := s.pull(t, w, 8)
	if len(grants) != 1 {
		t.Fatalf("granted %d, want 1 (team's maxRunning)", len(grants))
	}
	queued, holder := runs["t000"], "t001"
	if grants[0].RunID == queued {
		queued, holder = runs["t001"], "t000"
	}
	got := s.waitingOf(t, queued)
	if got == nil || got.Reason != run.WaitProjectBusy || got.Project != "team" || got.Running != 1 || got.MaxRunning != 1 ||
		len(got.Holders) != 1 || got.Holders[0].Trigger != holder || got.Holders[0].Runs != 1 {
		t.Fatalf("waiting %+v; want %s, team running 1 of 1, held by team/%s (1)", got, run.WaitProjectBusy, holder)
	}
	if !strings.Contains(got.Message(), "it waits for its project: team runs 1 of its maxRunning 1 Runs at once; the slots are held by Runs of team/"+holder+" (1)") {
		t.Fatalf("message %q", got.Message())
	}
	_, other := s.admitRuns(t, "other", 1)
	if d := s.waitingOf(t, other["t000"]); d != nil {
		t.Fatalf("another project's Run waits %+v; want nothing, a worker has free slots", d)
	}
	s.exec(t, `UPDATE qinglong.runs SET state = 'succeeded', finished_at_ms = `+ClockMsSQL+` WHERE id = $1`, grants[0].RunID)
	if d := s.waitingOf(t, queued); d != nil {
		t.Fatalf("once the project's Run ended the Run waits %+v; want nothing", d)
	}
}

// explainCapLock runs CappedProjectsLock under EXPLAIN (ANALYZE) as the
// runtime role, in a transaction it rolls back, and returns the projects
// it locked and how many runs rows its scans read.
func (s *store) explainCapLock(t *testing.T) (locked, runReads int, plan string) {
	t.Helper()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	top, out := explainPlan(t, tx, "capped projects lock", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlCappedProjectsLock)
	top.walk(func(n planNode) {
		if n.Relation == "runs" {
			runReads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	return int(top.ActualRows), runReads, string(out)
}

// A pull reads neither a capped project's queued backlog nor a capped
// project's finished history: beside a capped project with 5,000 Runs
// queued, and one with 5,000 finished and none queued, the lock reads a
// few runs rows and locks the one with a queue, and the grant takes the
// capped project's room and other projects' Runs reading at most 100.
// The negative control drops runs_project_slot_idx: the lock then walks
// the finished history.
func TestAPullNeverWalksACappedProjectsBacklogOrHistory(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	teamID, team := s.admitRuns(t, "team", 1)
	s.capProject(t, "team", 2)
	s.queueBacklog(t, dispatchBacklog{of: team["t000"]})
	_, idle := s.admitRuns(t, "idle", 1)
	s.capProject(t, "idle", 2)
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
		SELECT gen_random_uuid(), r.project_id, r.task_id, r.task_revision, r.trigger_id, r.trigger_revision, r.execution_revision_id,
			'history-' || g, r.scheduled_for_ms, 'succeeded', 5, 5, r.created_at_ms, r.queued_at_ms, r.updated_at_ms, r.updated_at_ms
		FROM qinglong.runs r, generate_series(1, $2::int) g WHERE r.id = $1`, idle["t000"], backlogSize)
	s.exec(t, `UPDATE qinglong.runs SET state = 'succeeded', finished_at_ms = updated_at_ms WHERE id = $1`, idle["t000"])
	s.admitRuns(t, "plain", 10)
	s.exec(t, `ANALYZE`)
	const budget = 100
	locked, reads, plan := s.explainCapLock(t)
	if locked != 1 || reads > budget {
		t.Fatalf("the lock locked %d projects reading %d runs rows (budget %d); want team alone; plan:\n%s", locked, reads, budget, plan)
	}
	w := s.newWorker(t, "cpu", nil, 8)
	granted, reads, plan := s.explainDispatch(t, w, 8, teamID)
	if granted != 8 || reads > budget {
		t.Fatalf("the pull granted %d reading %d runs rows (budget %d); want 8 (team's 2 and 6 others); plan:\n%s", granted, reads, budget, plan)
	}
	s.exec(t, `DROP INDEX qinglong.runs_project_slot_idx`)
	if _, naive, _ := s.explainCapLock(t); naive <= 10*budget {
		t.Fatalf("without runs_project_slot_idx the lock read only %d runs rows; the measurement cannot tell a probe from a walk", naive)
	}
}
