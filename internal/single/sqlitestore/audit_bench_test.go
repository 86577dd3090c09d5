package sqlitestore

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// seedAuditSQL writes ?1 records into each of the audit trail's tables,
// one millisecond apart from ?2 on, behind the store's back: audit_log's
// with ids of the random prefix ?3 and a counter, the trigger schedule's
// of trigger ?4.
const seedAuditSQL = `
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?1)
INSERT INTO audit_log (id, at_ms, actor, action, object_kind, object_id, object_name, project, note)
SELECT printf('%s%012x', ?3, n), ?2 + n, 'alice', 'token.created', 'token', 'tok' || n, 'ci', '', '' FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?1)
INSERT INTO trigger_schedule_audit (trigger_id, action, actor, note, at_ms)
SELECT ?4, CASE n % 2 WHEN 0 THEN 'pause' ELSE 'resume' END, 'bob', NULL, ?2 + n FROM i;`

// BenchmarkAuditListPage measures one page of the audit listing
// (storetest.BenchAuditPages) with 100,000 records in audit_log and
// 100,000 in trigger_schedule_audit.
func BenchmarkAuditListPage(b *testing.B) {
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	tg := e.triggerTB(b, p.ID, tk, "tick")
	rows := storetest.AuditBenchRows
	if err := e.seedBehind(context.Background(), seedAuditSQL, rows, e.clock.NowMs()-2*int64(rows), idPrefix(), tg); err != nil {
		b.Fatal(err)
	}
	var middle string
	if err := e.raw.QueryRow(`SELECT at_ms || '.a' || id FROM audit_log ORDER BY at_ms DESC LIMIT 1 OFFSET ?`, rows/2).Scan(&middle); err != nil {
		b.Fatal(err)
	}
	storetest.BenchAuditPages(b, e.store, middle)
}
