package peers

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/testkit/cpumeter"
)

// cpuMeter measures what a drain costs in CPU time and allocations, the
// figures a shared machine's load moves least (BENCHMARKS.md, "Side by
// side with River"): this process's CPU (the in-process replica, and the
// benchmark's own poll), its heap allocations, and the private server's
// CPU (every backend, the poll's included).
type cpuMeter struct{ cpumeter.Meter }

// cpuUse is what a meter read.
type cpuUse struct{ cpumeter.Use }

// newCPUMeter meters the server of one of pool's backends.
func newCPUMeter(b *testing.B, pool *pgxpool.Pool) cpuMeter {
	b.Helper()
	var backend int
	if err := pool.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	return cpuMeter{cpumeter.New(b, backend)}
}

func (m cpuMeter) used(b *testing.B) cpuUse { return cpuUse{m.Used(b)} }

func (u cpuUse) since(start cpuUse) cpuUse { return cpuUse{u.Since(start.Use)} }

// report gives the drain's CPU times and the process's allocations per
// occurrence of n.
func (u cpuUse) report(b *testing.B, n int) {
	b.ReportMetric(float64(u.Process.Milliseconds()), "process_cpu_ms")
	b.ReportMetric(float64(u.Server.Milliseconds()), "server_cpu_ms")
	b.ReportMetric(float64(u.Allocs)/float64(n), "allocs/occurrence")
}
