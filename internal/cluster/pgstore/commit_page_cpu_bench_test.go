package pgstore

import (
	"context"
	"runtime"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// BenchmarkPageCommit drains 10,000 due schedules with one replica taking
// full pages (256, committed as the scheduler's default parallelism of
// groups) and reports what each admission costs the replica's process —
// its CPU time and its heap allocations — beside the server's CPU. On a
// machine the replica shares with the server and with other work, the
// drain's wall time moves with the load; these move far less, and the
// replica's share is what its own code can lower (BENCHMARKS.md, "Side by
// side with River").
//
//	go test ./internal/cluster/pgstore -run '^$' -bench 'BenchmarkPageCommit$' -benchtime 3x
func BenchmarkPageCommit(b *testing.B) {
	s := newStore(b)
	s.buildDueSchedules(b, benchDueSchedules)
	meter := s.cpuMeter(b)
	rt := s.openRuntimeSized(b, "bench-page", benchParallel+1)
	cfg := schedule.RoundConfig{PageSize: schedule.MaxPageSize, GraceMs: testGraceMs, Parallel: benchParallel, NewIDs: ids.Fill}
	var cpu cpuUse
	var allocs uint64
	for b.Loop() {
		b.StopTimer()
		s.resetDue(b)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := meter.used(b)
		b.StartTimer()
		admitted := 0
		for {
			sum, err := schedule.Round(context.Background(), rt, cfg)
			if err != nil || len(sum.Errors) > 0 {
				b.Fatalf("round: %v %v", err, sum.Errors)
			}
			admitted += sum.Counts[schedule.Admitted]
			if sum.Taken == 0 {
				break
			}
		}
		b.StopTimer()
		cpu = meter.used(b).since(start)
		runtime.ReadMemStats(&after)
		allocs = after.Mallocs - before.Mallocs
		if admitted != benchDueSchedules {
			b.Fatalf("admitted %d of %d due schedules", admitted, benchDueSchedules)
		}
		b.StartTimer()
	}
	cpu.report(b)
	b.ReportMetric(float64(allocs)/benchDueSchedules, "allocs/admit")
}
