package pgstore

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestThePageCommitProbesRunsByKeyHoweverMuchTheTableGrew: the page
// commit's reads of runs (CommitPageProbe: the occurrence's Run by
// idempotency key, the trigger's unfinished Runs; here as the retry after a
// replay sends it, for every admission of the page) stay index probes when the
// connection first ran them on an empty runs table and the table then grew
// with no ANALYZE in between (a fresh installation's first bursts), while the
// page lock keeps its cached generic plan. The negative control shows the
// failure this guards against is real: the same probe under a plan cached
// on the empty table reads every Run.
func TestThePageCommitProbesRunsByKeyHoweverMuchTheTableGrew(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	// No ANALYZE may refresh a plan behind the test's back.
	s.exec(t, `ALTER TABLE qinglong.runs SET (autovacuum_enabled = false)`)

	// The production path: the page's pipeline on one connection, first
	// while runs is empty.
	conn, err := s.runtime.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := lockPage(ctx, conn, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := rollback(ctx, conn); err != nil {
		t.Fatal(err)
	}
	// The same probe prepared under each plan mode, also while runs is
	// empty. The pipeline sets the mode for its transaction; the session
	// setting gives the PREPARE and each EXECUTE here the same.
	c := s.env.conn(t, RoleRuntime)
	modes := map[string]string{"production": sqlCustomPlans, "control": sqlGenericPlans}
	for name, set := range modes {
		if _, err := c.Exec(ctx, "SET plan_cache_mode = "+planMode(t, set)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "PREPARE probe_"+name+" AS "+sqlCommitPageProbe); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "EXPLAIN EXECUTE probe_"+name+"('{}'::uuid[], '{}'::text[])"); err != nil {
			t.Fatal(err)
		}
	}

	projectID, _ := s.admitRuns(t, "grows", 1)
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision,
			execution_revision_id, idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision,
			execution_revision_id, idempotency_key || ':' || g, scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms
		  FROM qinglong.runs, generate_series(1, 2000) g WHERE project_id = $1`, projectID)
	var p schedule.CommitParams
	if err := s.super.QueryRow(ctx, `SELECT trigger_id, trigger_revision, next_fire_at_ms FROM qinglong.trigger_schedules WHERE project_id = $1`,
		projectID).Scan(&p.Ticket.TriggerID, &p.Ticket.TriggerRevision, &p.Decision.ScheduledForMs); err != nil {
		t.Fatal(err)
	}
	p.Decision.Action = schedule.Admit

	facts, err := lockPage(ctx, conn, []schedule.CommitParams{p}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := rollback(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if f, ok := facts.at(0); !ok || f.occurred {
		t.Fatalf("the page's row: found %v, has its Run %v; want found, no Run", ok, f.occurred)
	}
	plans := preparedPlans(t, conn.Conn())
	if pl := plans[sqlCommitPageProbe]; pl.custom != 2 || pl.generic != 0 {
		t.Errorf("the probe of runs was planned %d times for its run and used a cached plan %d times; want 2 and 0", pl.custom, pl.generic)
	}
	if pl := plans[sqlCommitPageLock]; pl.generic != 2 || pl.custom != 0 {
		t.Errorf("the page lock used its cached plan %d times and was planned %d times for its run; want 2 and 0", pl.generic, pl.custom)
	}

	for name, set := range modes {
		if _, err := c.Exec(ctx, "SET plan_cache_mode = "+planMode(t, set)); err != nil {
			t.Fatal(err)
		}
		key := schedule.IdempotencyKey(p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Decision.ScheduledForMs)
		// EXPLAIN takes no parameters; both values are hex digits, dashes
		// and colons.
		text := explainLines(t, c, "EXPLAIN (ANALYZE, COSTS OFF) EXECUTE probe_"+name+"(ARRAY['"+p.Ticket.TriggerID+"']::uuid[], ARRAY['"+key+"'])")
		seq := strings.Contains(text, "Seq Scan on runs")
		probe := strings.Contains(text, "using runs_idempotency_key on runs")
		switch {
		case name == "production" && (seq || !probe):
			t.Errorf("the probe does not read runs by key after the table grew:\n%s", text)
		case name == "control" && !seq:
			t.Errorf("the negative control did not reproduce the full pass over runs, so the test proves nothing:\n%s", text)
		}
	}
}

// TestAPageReadsRunsOnlyForAnOverlapPolicyOrAfterAReplay: a page of
// admissions whose triggers have no overlap policy is locked without the
// probe of runs (the costliest statement of its transaction after the
// write), an admission whose trigger has one still has its trigger's
// unfinished Runs read in the same transaction, and the retry after a
// replay (probe set) finds the occurrence that already has its Run.
func TestAPageReadsRunsOnlyForAnOverlapPolicyOrAfterAReplay(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	projectID, runs := s.admitRuns(t, "probed", 3)
	rows, err := s.super.Query(ctx, `SELECT tr.name, s.trigger_id, s.trigger_revision, s.next_fire_at_ms, s.last_scheduled_at_ms
		  FROM qinglong.trigger_schedules s JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
		 WHERE s.project_id = $1 ORDER BY tr.name`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	var page []schedule.CommitParams
	var names []string
	var admittedAt []int64
	for rows.Next() {
		var p schedule.CommitParams
		var name string
		var last int64
		if err := rows.Scan(&name, &p.Ticket.TriggerID, &p.Ticket.TriggerRevision, &p.Decision.ScheduledForMs, &last); err != nil {
			t.Fatal(err)
		}
		p.Decision.Action = schedule.Admit
		page, names, admittedAt = append(page, p), append(names, name), append(admittedAt, last)
	}
	if err := rows.Err(); err != nil || len(page) != 3 {
		t.Fatalf("%d schedule rows, %v; want 3", len(page), err)
	}
	conn, err := s.runtime.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	lock := func(page []schedule.CommitParams, probe bool) pageLock {
		t.Helper()
		facts, err := lockPage(ctx, conn, page, probe)
		if err != nil {
			t.Fatal(err)
		}
		if err := rollback(ctx, conn); err != nil {
			t.Fatal(err)
		}
		for i := range page {
			if _, ok := facts.at(i); !ok {
				t.Fatalf("the lock did not find row %d of %d", i+1, len(page))
			}
		}
		return facts
	}
	probes := func() int64 {
		pl := preparedPlans(t, conn.Conn())[sqlCommitPageProbe]
		return pl.custom + pl.generic
	}

	lock(page, false)
	if n := probes(); n != 0 {
		t.Errorf("a page without overlap policies ran the probe of runs %d times; want 0", n)
	}

	s.exec(t, `UPDATE qinglong.trigger_revisions SET overlap_policy = 'skip' WHERE trigger_id = $1`, page[1].Ticket.TriggerID)
	facts := lock(page, false)
	if n := probes(); n != 1 {
		t.Errorf("a page with one overlap policy ran the probe of runs %d times; want 1", n)
	}
	if got := facts[1].Unfinished; len(got) != 1 || got[0] != runs[names[1]] {
		t.Errorf("%s (skip): unfinished Runs %v; want its queued Run %s", names[1], got, runs[names[1]])
	}
	s.exec(t, `UPDATE qinglong.trigger_revisions SET overlap_policy = NULL WHERE trigger_id = $1`, page[1].Ticket.TriggerID)

	replay := slices.Clone(page)
	replay[2].Decision.ScheduledForMs = admittedAt[2]
	facts = lock(replay, true)
	if n := probes(); n != 2 {
		t.Errorf("the replay's retry ran the probe of runs %d times in all; want 2", n)
	}
	for i := range replay {
		if want := i == 2; facts[i].occurred != want {
			t.Errorf("%s: has its Run %v; want %v", names[i], facts[i].occurred, want)
		}
	}
}

// planCounts are how a prepared statement was planned on its connection.
type planCounts struct{ generic, custom int64 }

// preparedPlans reads the plan counts of c's prepared statements by text.
func preparedPlans(t *testing.T, c *pgx.Conn) map[string]planCounts {
	t.Helper()
	rows, err := c.Query(t.Context(), `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]planCounts{}
	for rows.Next() {
		var text string
		var pc planCounts
		if err := rows.Scan(&text, &pc.generic, &pc.custom); err != nil {
			t.Fatal(err)
		}
		out[text] = pc
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// explainLines runs an EXPLAIN on c and returns its lines.
func explainLines(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	rows, err := c.Query(t.Context(), sql)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// planMode is the plan_cache_mode a settings statement sets.
func planMode(t *testing.T, set string) string {
	t.Helper()
	m := regexp.MustCompile(`set_config\('plan_cache_mode', '(\w+)', true\)`).FindStringSubmatch(set)
	if m == nil {
		t.Fatalf("no plan_cache_mode in %q", set)
	}
	return m[1]
}
