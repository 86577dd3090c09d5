package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// ownProjectID is the project addDueProject adds: outside the claim
// layout's ids.
const ownProjectID = `'00000000-0000-7000-8000-0000000f0001'::uuid`

// addDueProject adds project "own" with n triggers due ten milliseconds
// ago (after every row the claim layout made due), written as the
// superuser like the layout.
func (s *store) addDueProject(t testing.TB, n int) {
	t.Helper()
	ctx := context.Background()
	taskID := `'00000000-0000-7000-8000-0000000f0002'::uuid`
	for _, stmt := range []string{
		`SET session_replication_role = replica`,
		`INSERT INTO qinglong.projects SELECT ` + ownProjectID + `, 'own', 'active', 0, 0`,
		`INSERT INTO qinglong.tasks SELECT ` + taskID + `, ` + ownProjectID + `, 'job', 1, 0, 0`,
		`INSERT INTO qinglong.task_revisions SELECT id, 1, project_id,
			'qinglong/command@v1', 'job', true, '{}', '{}', 'sha256:' || repeat('a', 64), 'm', 0 FROM qinglong.tasks WHERE id = ` + taskID,
		fmt.Sprintf(`INSERT INTO qinglong.triggers SELECT gen_random_uuid(), %s, %s, 'own' || i, 1, 0, 0 FROM generate_series(1, %d) i`, ownProjectID, taskID, n),
		`INSERT INTO qinglong.trigger_revisions
			SELECT id, 1, project_id, task_id, 1, 'sha256:' || repeat('a', 64), 'qinglong/cron@v1', name, true,
			       '* * * * *', 'UTC', 'fire_once', 'sha256:' || repeat('b', 64), 'm', 0
			FROM qinglong.triggers WHERE project_id = ` + ownProjectID,
		`WITH now AS (SELECT ` + ClockMsSQL + ` AS ms)
			INSERT INTO qinglong.trigger_schedules
			SELECT id, project_id, 1, now.ms - 10, NULL, 2, NULL, NULL, 0, NULL, now.ms
			FROM qinglong.triggers, now WHERE project_id = ` + ownProjectID,
		`RESET session_replication_role`,
		`ANALYZE`,
	} {
		if _, err := s.super.Exec(ctx, stmt); err != nil {
			t.Fatalf("adding the bound project: %v\n%s", err, stmt)
		}
	}
}

// benchOthersDue is how many schedule rows of other projects (100 of
// them) are due, all before the bound project's, in
// BenchmarkBoundBacklogBesideOthersDue.
const benchOthersDue = 100_000

// BenchmarkBoundBacklogBesideOthersDue measures the overview's backlog of
// a user bound to one project with 3 due triggers (Backlog, cut at
// schedule.MonitorLimit) beside 100 other projects' 100,000 triggers,
// none due and all due before the bound project's.
func BenchmarkBoundBacklogBesideOthersDue(b *testing.B) {
	for _, due := range []int{0, benchOthersDue} {
		b.Run(fmt.Sprintf("othersDue=%d", due), func(b *testing.B) {
			s := newStore(b)
			s.buildClaimLayout(b, claimLayout{total: benchOthersDue, dueRows: due, projects: 100})
			s.addDueProject(b, 3)
			for b.Loop() {
				bl, err := s.runtime.Backlog(b.Context(), schedule.MonitorLimit, []string{"own"})
				if err != nil || bl.Due != 3 {
					b.Fatalf("backlog %+v, %v; want the bound project's 3 due", bl, err)
				}
			}
		})
	}
}

// seedAudit writes n records into each of the audit trail's tables, one
// millisecond apart, interleaved in time, the trigger schedule's of the
// bound project's first trigger.
func (s *store) seedAudit(t testing.TB, n int) {
	t.Helper()
	for _, stmt := range []string{
		fmt.Sprintf(`INSERT INTO qinglong.audit_log (id, at_ms, actor, action, object_kind, object_id, object_name, project, note)
			SELECT gen_random_uuid(), 1000000 + 2 * i, 'alice', 'token.created', 'token', 'tok' || i, 'ci', '', ''
			FROM generate_series(1, %d) i`, n),
		fmt.Sprintf(`INSERT INTO qinglong.trigger_schedule_audit (id, trigger_id, action, actor, note, at_ms)
			SELECT gen_random_uuid(), (SELECT id FROM qinglong.triggers WHERE project_id = %s LIMIT 1),
			       CASE i %% 2 WHEN 0 THEN 'pause' ELSE 'resume' END, 'bob', NULL, 1000001 + 2 * i
			FROM generate_series(1, %d) i`, ownProjectID, n),
		`ANALYZE`,
	} {
		if _, err := s.super.Exec(context.Background(), stmt); err != nil {
			t.Fatalf("seeding the audit trail: %v\n%s", err, stmt)
		}
	}
}

// BenchmarkAuditListPage measures one page of the audit listing
// (storetest.BenchAuditPages) with 100,000 records in audit_log and
// 100,000 in trigger_schedule_audit.
func BenchmarkAuditListPage(b *testing.B) {
	s := newStore(b)
	s.addDueProject(b, 1)
	s.seedAudit(b, storetest.AuditBenchRows)
	var middle string
	if err := s.super.QueryRow(b.Context(), `SELECT at_ms || '.a' || id FROM qinglong.audit_log ORDER BY at_ms DESC LIMIT 1 OFFSET $1`, storetest.AuditBenchRows/2).Scan(&middle); err != nil {
		b.Fatal(err)
	}
	storetest.BenchAuditPages(b, s.runtime, middle)
}
