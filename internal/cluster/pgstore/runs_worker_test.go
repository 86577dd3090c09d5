package pgstore

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A listing by worker keeps the Runs any attempt of which that worker
// held, newest first, and every listed Run names the worker of its latest
// attempt: what `ql runs list --worker` and its WORKER column show.
func TestRunsListByWorkerKeepsTheRunsItRanAndNamesEachRunsWorker(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "fleet", 3)
	a, b := s.newWorker(t, "worker-a", nil, 8), s.newWorker(t, "worker-b", nil, 8)
	ranBy := map[string]string{}
	for _, w := range []worker{a, a, b} {
		_, g := s.started(t, w)
		ranBy[g.RunID] = w.Name
	}
	all, _, err := s.runtime.RunList(t.Context(), run.ListParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.WorkerName != ranBy[r.ID] {
			t.Errorf("run %s is listed with worker %q; its attempt is held by %q", r.ID, r.WorkerName, ranBy[r.ID])
		}
	}
	for _, w := range []string{"worker-a", "worker-b"} {
		list, _, err := s.runtime.RunList(t.Context(), run.ListParams{Worker: w})
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, r := range list {
			got = append(got, r.ID)
		}
		for _, id := range runs {
			if ranBy[id] == w {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Errorf("listing by %s gave %v, want the Runs it ran newest first, %v", w, got, want)
		}
		// A page at a time, by the cursor, the same Runs in the same order.
		var paged []string
		for after := ""; ; {
			page, next, err := s.runtime.RunList(t.Context(), run.ListParams{Worker: w, Limit: 1, After: after})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				paged = append(paged, r.ID)
			}
			if next == "" {
				break
			}
			after = next
		}
		if !slices.Equal(paged, want) {
			t.Errorf("listing by %s a Run a page gave %v, want %v", w, paged, want)
		}
	}
	if _, _, err := s.runtime.RunList(t.Context(), run.ListParams{Worker: "worker-c"}); qlerror.CodeOf(err) != qlerror.NotFound || !strings.Contains(err.Error(), `no worker named "worker-c"`) {
		t.Errorf("listing by a worker no credential names: %v; want NotFound naming it", err)
	}
}

// TestRunsListByWorkerReadsOnlyThatWorkersAttempts gives one worker 5,000
// Runs newer than a quiet worker's 10 and lists the quiet one's: the page
// must be found through the worker's own attempts, not by walking the
// busy worker's Runs or every attempt; and the busy worker's first page
// reads about a page, not its 5,000.
func TestRunsListByWorkerReadsOnlyThatWorkersAttempts(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	quiet, busy := s.newWorker(t, "quiet", nil, 8), s.newWorker(t, "busy", nil, 8)
	s.admitRuns(t, "old", 10)
	s.exec(t, `UPDATE qinglong.attempts SET worker_id = $1`, quiet.ID)
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		SELECT (lpad(to_hex(`+ClockMsSQL+` + g), 12, '0') || '7000800000000000' || lpad(to_hex(g), 4, '0'))::uuid,
			project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'busy-' || g, scheduled_for_ms, 'succeeded', 2, 2, created_at_ms, queued_at_ms, updated_at_ms
		FROM (SELECT * FROM qinglong.runs LIMIT 1) one, generate_series(1, 5000) g`)
	s.exec(t, `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, worker_id, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), r.id, 1, 'remote_worker', 'succeeded', $1, r.created_at_ms, r.created_at_ms
		FROM qinglong.runs r WHERE r.idempotency_key LIKE 'busy-%'`, busy.ID)
	s.exec(t, `ANALYZE`)
	measure := func(w worker) (listed, reads int, plan string) {
		tx, rollback := s.runtimeTx(t)
		defer rollback()
		q, args, err := runListQuery(run.ListParams{Worker: w.Name, Limit: run.DefaultPageSize}, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		top, out := explainPlan(t, tx, "list by worker", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+q, args...)
		top.walk(func(n planNode) {
			if (n.Relation == "runs" || n.Relation == "attempts") && n.NodeType != "ModifyTable" {
				reads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
			}
		})
		return int(top.ActualRows), reads, string(out)
	}
	listed, reads, plan := measure(quiet)
	if listed != 10 {
		t.Fatalf("the listing by the quiet worker gave %d Runs, want its 10; plan:\n%s", listed, plan)
	}
	// Each listed Run costs its attempt by worker, its runs row by key and
	// its latest attempt for the columns.
	const budget = 100
	if reads > budget {
		t.Fatalf("listing the quiet worker's 10 Runs read %d runs and attempts rows (budget %d) beside the busy worker's 5,000; plan:\n%s", reads, budget, plan)
	}
	t.Logf("listing 10 Runs of a worker beside 5,000 of another: %d runs and attempts rows read", reads)
	// The busy worker's first page stops at the page, too.
	if listed, reads, plan := measure(busy); listed != run.DefaultPageSize+1 || reads > 5*budget {
		t.Fatalf("the busy worker's first page listed %d and read %d rows (budget %d); plan:\n%s", listed, reads, 5*budget, plan)
	} else {
		t.Logf("the first page of a worker's 5,000 Runs: %d rows read", reads)
	}
	// Negative control: without the index the same measurement sees the
	// busy worker's attempts.
	s.exec(t, `DROP INDEX qinglong.attempts_worker_run_idx`)
	s.exec(t, `ANALYZE`)
	if _, naive, _ := measure(quiet); naive <= 5000 {
		t.Fatalf("without the index the listing read only %d rows; the measurement cannot tell a flat plan from a walk", naive)
	} else {
		t.Logf("without the index: %d rows read", naive)
	}
}
