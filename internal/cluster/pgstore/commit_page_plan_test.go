package pgstore

import (
	"regexp"
	"strings"
	"testing"
)

// TestThePageLockProbesRunsByKeyHoweverMuchTheTableGrew: the page lock's
// check for an existing Run stays a probe of the unique key when the
// connection first ran it on an empty runs table and the table then grew
// with no ANALYZE in between (a fresh install's first burst). The negative
// control shows the failure this guards against is real: the same
// statement under a cached generic plan reads every Run.
func TestThePageLockProbesRunsByKeyHoweverMuchTheTableGrew(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	// No ANALYZE may refresh the plan behind the test's back.
	s.exec(t, `ALTER TABLE qinglong.runs SET (autovacuum_enabled = false)`)
	c := s.env.conn(t, RoleRuntime)
	settings := map[string]string{"production": sqlPageLockPlans, "control": sqlGenericPlans}
	for name, set := range settings {
		// The pipeline sets the mode for its transaction; the session
		// setting gives the PREPARE and each EXECUTE here the same.
		if _, err := c.Exec(ctx, "SET plan_cache_mode = "+planMode(t, set)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "PREPARE lock_"+name+" AS "+sqlCommitPageLock); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "EXPLAIN EXECUTE lock_"+name+"('{}'::uuid[], '{}'::text[])"); err != nil {
			t.Fatal(err)
		}
	}
	projectID, _ := s.admitRuns(t, "grows", 1)
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision,
			execution_revision_id, idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision,
			execution_revision_id, idempotency_key || ':' || g, scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms
		  FROM qinglong.runs, generate_series(1, 20000) g WHERE project_id = $1`, projectID)
	var triggerID string
	if err := s.super.QueryRow(ctx, `SELECT trigger_id FROM qinglong.trigger_schedules WHERE project_id = $1`, projectID).Scan(&triggerID); err != nil {
		t.Fatal(err)
	}
	for name, set := range settings {
		if _, err := c.Exec(ctx, "SET plan_cache_mode = "+planMode(t, set)); err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) EXECUTE lock_"+name+"(ARRAY['"+triggerID+"']::uuid[], ARRAY['no such key'])")
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
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		seq := strings.Contains(text, "Seq Scan on runs")
		probe := strings.Contains(text, "using runs_idempotency_key on runs")
		switch {
		case name == "production" && (seq || !probe):
			t.Errorf("the page lock does not probe runs by key after the table grew:\n%s", text)
		case name == "control" && !seq:
			t.Errorf("the negative control did not reproduce the full pass over runs, so the test proves nothing:\n%s", text)
		}
	}
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
