package pgstore

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestAReRunAskedAgainAfterItsOriginalIsGoneProbesTheKeyIndexPerProject:
// with many Runs and a few projects, the look-up of a re-run's key in
// whichever project holds it (ManualReplayAnyProject) probes the key's
// unique index once per project, never reading the runs table whole, so
// its cost follows the projects and not the Runs kept.
func TestAReRunAskedAgainAfterItsOriginalIsGoneProbesTheKeyIndexPerProject(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	err := pgx.BeginFunc(ctx, s.super, func(tx pgx.Tx) error {
		for _, stmt := range []string{
			`SET LOCAL session_replication_role = replica`,
			`INSERT INTO qinglong.projects (id, name, status, created_at_ms, updated_at_ms)
			 SELECT gen_random_uuid(), 'p' || n, 'active', 1, 1 FROM generate_series(1, 20) n`,
			`INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, execution_revision_id, idempotency_key,
			        scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms)
			 SELECT gen_random_uuid(), p.id, gen_random_uuid(), 1, 'qltd:v1:1:sha256:' || repeat('0', 64), 'k' || n, 0, 'succeeded', 1, 1, 0, 0
			   FROM qinglong.projects p, generate_series(1, 5000) n`,
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.super.Exec(ctx, `ANALYZE qinglong.projects, qinglong.runs, qinglong.run_events`); err != nil {
		t.Fatal(err)
	}
	rows, err := s.super.Query(ctx, "EXPLAIN "+sqlManualReplayAnyProject, "ql3:rerun:v1:x:y")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if strings.Contains(text, "Seq Scan on runs") || !strings.Contains(text, "Index Scan using runs_idempotency_key on runs") ||
		!strings.Contains(text, "Index Cond: ((project_id = p.id) AND (idempotency_key = ") {
		t.Fatalf("the re-run key's look-up across projects does not probe runs_idempotency_key:\n%s", text)
	}
}
