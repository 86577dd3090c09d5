package sqlitestore

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
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

// benchAuditRows is how many records each of the audit trail's tables
// holds in BenchmarkAuditListPage.
const benchAuditRows = 100_000

// BenchmarkAuditListPage measures one page (100 records) of the audit
// listing with 100,000 records in audit_log and 100,000 in
// trigger_schedule_audit, interleaved in time: the first page, and a page
// in the middle of the trail (after 100,000 records, through the cursor
// of the page before it).
func BenchmarkAuditListPage(b *testing.B) {
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	tg := e.triggerTB(b, p.ID, tk, "tick")
	ctx := context.Background()
	conn, err := e.raw.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE;"+seedAuditSQL+"COMMIT;", benchAuditRows, e.clock.NowMs()-2*benchAuditRows, idPrefix(), tg); err != nil {
		b.Fatal(err)
	}
	conn.Close()
	var middle string
	if err := e.raw.QueryRow(`SELECT at_ms || '.a' || id FROM audit_log ORDER BY at_ms DESC LIMIT 1 OFFSET ?`, benchAuditRows/2).Scan(&middle); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, after string
	}{{"first", ""}, {"deep", middle}} {
		b.Run("page="+c.name, func(b *testing.B) {
			for b.Loop() {
				page, err := e.store.AuditList(b.Context(), audit.Query{Limit: 100, After: c.after})
				if err != nil || len(page.Records) != 100 || page.Next == "" {
					b.Fatalf("a page of %d records (next %q), %v; want 100 and more", len(page.Records), page.Next, err)
				}
			}
		})
	}
}
