package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// joinedRevisionsTriggerList is the trigger listing as it was before it
// read each current revision by key: the join the planner could answer by
// hashing every trigger revision ever published, which the benchmark
// compares with.
const joinedRevisionsTriggerList = `
SELECT p.id, p.name, tg.id, tr.name, tr.revision, tr.enabled, tr.cron_expression, tr.cron_timezone, tr.misfire_policy,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tr.task_id, tk.name, tr.task_revision, s.next_fire_at_ms, s.next_fire_at_ms + s.due_offset_ms, s.last_scheduled_at_ms, s.state_version, s.claim_owner, s.claim_expires_at_ms,
       s.paused, s.paused_with_project, p.status = 'archived', tg.title, tk.title, p.title,
       coalesce(p.name || '/' || tr.name || ' ' || tk.name || ' ' || tg.title || ' ' || tk.title || ' ' || p.title ILIKE $4::text ESCAPE '\', false),
       (SELECT kr.command ->> 'mode' FROM qinglong.task_revisions kr WHERE kr.task_id = tr.task_id AND kr.revision = tr.task_revision)
  FROM qinglong.triggers tg
  JOIN qinglong.projects p ON p.id = tg.project_id
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = tg.id AND tr.revision = tg.current_revision
  JOIN qinglong.tasks tk ON tk.id = tr.task_id
  JOIN qinglong.trigger_schedules s ON s.trigger_id = tg.id
 WHERE ($1::uuid IS NULL OR tg.project_id = $1::uuid)
   AND ($2::uuid IS NULL OR tg.id > $2::uuid)
   AND ($5::text[] IS NULL OR p.name = ANY($5::text[]))
   AND ($4::text IS NULL OR p.name || '/' || tr.name || ' ' || tk.name || ' ' || tg.title || ' ' || tk.title || ' ' || p.title ILIKE $4::text ESCAPE '\'
        OR (SELECT CASE kr.command ->> 'mode'
                     WHEN 'shell' THEN kr.command ->> 'script'
                     ELSE concat_ws(' ', kr.command ->> 'path',
                                    (SELECT string_agg(a.arg, ' ' ORDER BY a.n)
                                       FROM jsonb_array_elements_text(coalesce(kr.command -> 'args', '[]'::jsonb)) WITH ORDINALITY AS a(arg, n)))
                   END
              FROM qinglong.task_revisions kr
             WHERE kr.task_id = tr.task_id AND kr.revision = tr.task_revision) ILIKE $4::text ESCAPE '\')
 ORDER BY tg.id
 LIMIT $3
`

// BenchmarkTriggerListHistory measures a first page of the triggers list
// and a search that walks every trigger (storetest.BenchTriggerPage) over
// 1,000 triggers published once and over the same triggers republished
// until each has 50 revisions: the listing before (joined revisions) and
// now, both on the runtime role's pool.
func BenchmarkTriggerListHistory(b *testing.B) {
	for _, revisions := range []int{1, storetest.HistoryBenchRevisions} {
		s := newStore(b)
		storetest.SeedTriggerHistory(b, s.fixture().Service, storetest.HistoryBenchTriggers, revisions)
		if _, err := s.super.Exec(b.Context(), "ANALYZE"); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("revisions=%d/before", revisions), func(b *testing.B) {
			storetest.BenchTriggerPage(b, revisions, s.rawHistory(joinedRevisionsTriggerList))
		})
		b.Run(fmt.Sprintf("revisions=%d/after", revisions), func(b *testing.B) {
			storetest.BenchTriggerPage(b, revisions, s.rawHistory(sqlTriggerList, false))
		})
	}
}

// rawHistory lists with statement on the runtime pool, its trailing
// arguments extra after the first five, counting rows and reading the
// first one's revision.
func (s *store) rawHistory(statement string, extra ...any) storetest.HistoryList {
	return func(ctx context.Context, search string) (int, int64, error) {
		var pattern *string
		if search != "" {
			p, err := schedule.TriggerListParams{Search: search}.SearchPattern()
			if err != nil {
				return 0, 0, err
			}
			pattern = &p
		}
		rows, err := s.runtime.pool.Query(ctx, statement, append([]any{nil, nil, 50, pattern, nil}, extra...)...)
		if err != nil {
			return 0, 0, err
		}
		defer rows.Close()
		n, first := 0, int64(0)
		for rows.Next() {
			if n == 0 {
				vals, err := rows.Values()
				if err != nil {
					return 0, 0, err
				}
				first = vals[4].(int64)
			}
			n++
		}
		return n, first, rows.Err()
	}
}
