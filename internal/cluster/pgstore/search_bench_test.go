package pgstore

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// namesOnlyTriggerList is the trigger listing as it was before its search
// read commands: the names-only search the benchmark compares with.
const namesOnlyTriggerList = `
SELECT p.id, p.name, tg.id, tr.name, tr.revision, tr.enabled, tr.cron_expression, tr.cron_timezone, tr.misfire_policy,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tr.task_id, tk.name, tr.task_revision, s.next_fire_at_ms, s.next_fire_at_ms + s.due_offset_ms, s.last_scheduled_at_ms, s.state_version, s.claim_owner, s.claim_expires_at_ms,
       s.paused, s.paused_with_project, p.status = 'archived', tg.title, tk.title, p.title
  FROM qinglong.triggers tg
  JOIN qinglong.projects p ON p.id = tg.project_id
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = tg.id AND tr.revision = tg.current_revision
  JOIN qinglong.tasks tk ON tk.id = tr.task_id
  JOIN qinglong.trigger_schedules s ON s.trigger_id = tg.id
 WHERE ($1::uuid IS NULL OR tg.project_id = $1::uuid)
   AND ($2::uuid IS NULL OR tg.id > $2::uuid)
   AND ($5::text[] IS NULL OR p.name = ANY($5::text[]))
   AND ($4::text IS NULL OR p.name || '/' || tr.name || ' ' || tk.name || ' ' || tg.title || ' ' || tk.title || ' ' || p.title ILIKE $4::text ESCAPE '\')
 ORDER BY tg.id
 LIMIT $3`

// BenchmarkTriggerSearch measures a first page of the triggers list's
// search over 10,000 tasks, each with a trigger, in one project, for a
// trigger's name, a task's script and text in nothing: the listing,
// which reads names and commands, beside the names-only search before it
// (read on the superuser's pool, the listing on the runtime role's).
func BenchmarkTriggerSearch(b *testing.B) {
	s := newStore(b)
	storetest.SeedSearch(b, s.fixture().Service)
	if _, err := s.super.Exec(b.Context(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	storetest.BenchSearch(b, s.runtime, func(ctx context.Context, pattern string, limit int) (storetest.NamesOnlyRows, error) {
		return s.super.Query(ctx, namesOnlyTriggerList, nil, nil, limit, pattern, nil)
	})
}
