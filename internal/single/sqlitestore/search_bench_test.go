package sqlitestore

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// namesOnlyTriggersList is the trigger listing as it was before its
// search read commands: the names-only search the benchmark compares with.
const namesOnlyTriggersList = `
SELECT p.id, p.name, t.id, r.name, r.revision, r.enabled, r.expression, r.timezone, r.misfire_policy,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       r.task_id, kr.name, r.task_revision, s.next_fire_at_ms, s.next_fire_at_ms + s.due_offset_ms, s.last_scheduled_at_ms, coalesce(s.state_version, 0),
       coalesce(s.paused, 0), coalesce(s.paused_with_project, 0), p.status = 'archived', t.title, kh.title, p.title
FROM triggers t
JOIN projects p ON p.id = t.project_id
JOIN tasks kh ON kh.id = t.task_id
JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
LEFT JOIN trigger_schedules s ON s.trigger_id = t.id
WHERE t.id IN (
  SELECT t.id
  FROM triggers t
  JOIN projects p ON p.id = t.project_id
  JOIN tasks kh ON kh.id = t.task_id
  JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
  JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
  WHERE (?1 = '' OR t.project_id = ?1) AND (?2 = '' OR t.id > ?2)
    AND (?5 = '' OR p.name IN (SELECT value FROM json_each(?5)))
    AND (?4 = '' OR p.name || '/' || r.name || ' ' || kr.name || ' ' || t.title || ' ' || kh.title || ' ' || p.title LIKE ?4 ESCAPE '\')
  ORDER BY t.id
  LIMIT ?3)
ORDER BY t.id`

// BenchmarkTriggerSearch measures a first page of the triggers list's
// search over 10,000 tasks, each with a trigger, in one project, for a
// trigger's name, a task's script and text in nothing: the listing,
// which reads names and commands, beside the names-only search before it.
func BenchmarkTriggerSearch(b *testing.B) {
	e := newEnv(b)
	storetest.SeedSearch(b, e.service())
	storetest.BenchSearch(b, e.store, func(ctx context.Context, pattern string, limit int) (storetest.NamesOnlyRows, error) {
		return e.raw.QueryContext(ctx, namesOnlyTriggersList, "", "", limit, pattern, "")
	})
}
