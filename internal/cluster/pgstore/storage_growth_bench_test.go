package pgstore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// runTables are the tables that grow with every Run until retention
// deletes it: the Run, its attempts, events, log chunks and
// notifications. The occurrence ledger is left out: it is compacted on
// its own, whatever the number of Runs.
const runTables = `'qinglong.runs', 'qinglong.attempts', 'qinglong.run_events', 'qinglong.run_log_chunks',
	'qinglong.notification_outbox'`

// BenchmarkStorageGrowthPerRun reports the bytes a finished Run takes on
// PostgreSQL, indexes and TOAST included (pg_total_relation_size of
// runTables): 256 Runs admitted by a real round (a round's largest page), each granted to a worker,
// started, given 100 bytes of log and finished exited 0, through the
// runtime role as the ingress does, one at a time, then ANALYZEd (no VACUUM FULL: the
// dead versions a Run's updates leave are what a table holds between
// autovacuum passes). The figure in docs/operations.md ("Retention") is
// its bytes/run.
func BenchmarkStorageGrowthPerRun(b *testing.B) {
	const n = 256
	for b.Loop() {
		s := newStore(b)
		before := s.runTablesSize(b)
		_, _ = s.admitRuns(b, "growth", n)
		w := s.newWorker(b, "w1", nil, 1)
		log := []byte(strings.Repeat("x", 99) + "\n")
		for range n {
			req, grants := s.pull(b, w, 1)
			if len(grants) != 1 {
				b.Fatalf("pulled %d grants, want 1", len(grants))
			}
			l := lease(req, grants[0])
			if reply, err := s.runtime.StartAttempt(b.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, WorkerSettings{}); err != nil || reply.Reply != workerproto.ReplyRenewed {
				b.Fatalf("start: %+v, %v", reply, err)
			}
			if _, err := s.runtime.AppendAttemptLog(b.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: 0, Data: log}, WorkerSettings{}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.runtime.CompleteAttempt(b.Context(), w.WorkerIdentity, exited(l, 0)); err != nil {
				b.Fatal(err)
			}
		}
		s.exec(b, "ANALYZE")
		b.ReportMetric(float64(s.runTablesSize(b)-before)/n, "bytes/run")
	}
}

func (s *store) runTablesSize(tb testing.TB) int64 {
	tb.Helper()
	var size int64
	if err := s.super.QueryRow(tb.Context(), `SELECT sum(pg_total_relation_size(t::regclass))::bigint FROM unnest(ARRAY[`+runTables+`]) t`).Scan(&size); err != nil {
		tb.Fatal(err)
	}
	return size
}
