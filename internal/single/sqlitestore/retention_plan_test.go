package sqlitestore

import (
	"strings"
	"testing"
)

// A retention batch reads the Runs or logs it deletes through their finish
// time, oldest first, never every finished Run: the state listing's
// partial index of finished Runs (0032) also covers the batches' state
// condition, and without statistics the planner drove the runs batch from
// it (reading and sorting the whole history) and the logs batch too.
func TestRetentionBatchesReadByFinishTimeNeverEveryFinishedRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		what, query, want string
		args              []any
	}{
		{"runs", qRetentionRunsBatch, "SEARCH r USING INDEX runs_finished (finished_at_ms<?)", []any{1, 2}},
		{"logs", qRetentionLogsBatch, "SEARCH a USING INDEX attempts_logs (finished_at_ms<?)", []any{1, 2}},
	} {
		plan := strings.Join(e.queryPlan(t, c.query, c.args...), "\n")
		if !strings.HasPrefix(plan, c.want) || strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "runs_finished_state") {
			t.Errorf("the %s batch's plan does not start with %q, or sorts, or reads the state listing's index:\n%s", c.what, c.want, plan)
		}
	}
}
