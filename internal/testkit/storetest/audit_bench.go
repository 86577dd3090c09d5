package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// AuditBenchRows is how many records each of the audit trail's tables
// holds in an adapter's benchmark of an audit page (BenchAuditPages).
const AuditBenchRows = 100_000

// BenchAuditPages measures one page (100 records) of r's audit listing,
// which the adapter filled with AuditBenchRows records in each of the
// trail's tables, interleaved in time: the first page, and a page in the
// middle of the trail, read through middle, the cursor of the record
// AuditBenchRows/2 records in.
func BenchAuditPages(b *testing.B, r audit.Reader, middle string) {
	for _, c := range []struct {
		name, after string
	}{{"first", ""}, {"deep", middle}} {
		b.Run("page="+c.name, func(b *testing.B) {
			for b.Loop() {
				page, err := r.AuditList(b.Context(), audit.Query{Limit: 100, After: c.after})
				if err != nil || len(page.Records) != 100 || page.Next == "" {
					b.Fatalf("a page of %d records (next %q), %v; want 100 and more", len(page.Records), page.Next, err)
				}
			}
		})
	}
}
