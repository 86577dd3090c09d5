package sqlitestore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// projectTables counts, by table, the rows that hold something of project
// ?1: every table a project's deletion must empty of it (the secrets file
// and the log files are checked apart).
const projectTables = `SELECT 'projects', count(*) FROM projects WHERE id = ?1
UNION ALL SELECT 'tasks', count(*) FROM tasks WHERE project_id = ?1
UNION ALL SELECT 'task_revisions', count(*) FROM task_revisions WHERE project_id = ?1
UNION ALL SELECT 'execution_revisions', count(*) FROM execution_revisions WHERE project_id = ?1
UNION ALL SELECT 'triggers', count(*) FROM triggers WHERE project_id = ?1
UNION ALL SELECT 'trigger_revisions', count(*) FROM trigger_revisions WHERE project_id = ?1
UNION ALL SELECT 'trigger_schedules', count(*) FROM trigger_schedules WHERE project_id = ?1
UNION ALL SELECT 'runs', count(*) FROM runs WHERE project_id = ?1
UNION ALL SELECT 'attempts', count(*) FROM attempts WHERE run_id IN (SELECT id FROM runs WHERE project_id = ?1)
UNION ALL SELECT 'run_events', count(*) FROM run_events WHERE run_id IN (SELECT id FROM runs WHERE project_id = ?1)
UNION ALL SELECT 'occurrence_ledger', count(*) FROM occurrence_ledger WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)
UNION ALL SELECT 'occurrence_ledger_compacted', count(*) FROM occurrence_ledger_compacted WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)
UNION ALL SELECT 'trigger_schedule_audit', count(*) FROM trigger_schedule_audit WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)
UNION ALL SELECT 'notification_outbox', count(*) FROM notification_outbox WHERE project_id = ?1
UNION ALL SELECT 'project_pauses', count(*) FROM project_pauses WHERE project_id = ?1
UNION ALL SELECT 'deleted_project_logs', count(*) FROM deleted_project_logs`

func (e *env) projectRows(ctx context.Context, projectID string) (map[string]int64, error) {
	rows, err := e.raw.QueryContext(ctx, projectTables, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storetest.CountsByTable(rows)
}

func newDeleteFixture(t *testing.T) storetest.Fixture {
	e := newEnv(t)
	f := e.fixture()
	f.ProjectDeleter = e.store.ProjectDeleter(e.logDir(), filepath.Join(filepath.Dir(e.path), "qinglong-secrets.json"))
	f.ProjectRows = e.projectRows
	f.BlockLogRemoval = e.blockLogRemoval
	return f
}

func TestProjectDeleteConformance(t *testing.T) {
	t.Parallel()
	storetest.RunProjectDelete(t, newDeleteFixture)
	storetest.RunProjectDeleteLogFiles(t, newDeleteFixture)
}

// blockLogRemoval puts a directory holding a file where the attempt's log
// file is, which no one, root included, can remove as a file: the removal
// fails with "directory not empty" until the file in it goes.
func (e *env) blockLogRemoval(t *testing.T, attemptID string) func() {
	t.Helper()
	path := filepath.Join(e.logDir(), attemptID+".log")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	inner := filepath.Join(path, "held")
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inner, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Remove(inner); err != nil {
			t.Fatal(err)
		}
	}
}
