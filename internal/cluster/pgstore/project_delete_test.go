package pgstore

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// projectTables counts, by table, the rows that hold something of project
// $1: every table a project's deletion must empty of it.
const projectTables = `SELECT 'projects', count(*) FROM qinglong.projects WHERE id = $1::uuid
UNION ALL SELECT 'tasks', count(*) FROM qinglong.tasks WHERE project_id = $1::uuid
UNION ALL SELECT 'task_revisions', count(*) FROM qinglong.task_revisions WHERE project_id = $1::uuid
UNION ALL SELECT 'execution_revisions', count(*) FROM qinglong.execution_revisions WHERE project_id = $1::uuid
UNION ALL SELECT 'triggers', count(*) FROM qinglong.triggers WHERE project_id = $1::uuid
UNION ALL SELECT 'trigger_revisions', count(*) FROM qinglong.trigger_revisions WHERE project_id = $1::uuid
UNION ALL SELECT 'trigger_schedules', count(*) FROM qinglong.trigger_schedules WHERE project_id = $1::uuid
UNION ALL SELECT 'runs', count(*) FROM qinglong.runs WHERE project_id = $1::uuid
UNION ALL SELECT 'attempts', count(*) FROM qinglong.attempts WHERE run_id IN (SELECT id FROM qinglong.runs WHERE project_id = $1::uuid)
UNION ALL SELECT 'run_events', count(*) FROM qinglong.run_events WHERE run_id IN (SELECT id FROM qinglong.runs WHERE project_id = $1::uuid)
UNION ALL SELECT 'run_log_chunks', count(*) FROM qinglong.run_log_chunks WHERE attempt_id IN
  (SELECT a.id FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id WHERE r.project_id = $1::uuid)
UNION ALL SELECT 'occurrence_ledger', count(*) FROM qinglong.occurrence_ledger WHERE trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid)
UNION ALL SELECT 'occurrence_ledger_compacted', count(*) FROM qinglong.occurrence_ledger_compacted WHERE trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid)
UNION ALL SELECT 'trigger_schedule_audit', count(*) FROM qinglong.trigger_schedule_audit WHERE trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid)
UNION ALL SELECT 'notification_outbox', count(*) FROM qinglong.notification_outbox WHERE project_id = $1::uuid
UNION ALL SELECT 'project_pauses', count(*) FROM qinglong.project_pauses WHERE project_id = $1::uuid`

func (s *store) projectRows(ctx context.Context, projectID string) (map[string]int64, error) {
	rows, err := s.super.Query(ctx, projectTables, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storetest.CountsByTable(rows)
}

func newDeleteFixture(t *testing.T) storetest.Fixture {
	s := newStore(t)
	f := s.fixture()
	m := s.openMaintenance(t)
	f.Retention, f.ProjectDeleter, f.ProjectRows = m, m, s.projectRows
	return f
}

func TestProjectDeleteConformance(t *testing.T) {
	t.Parallel()
	storetest.RunProjectDelete(t, newDeleteFixture)
}
