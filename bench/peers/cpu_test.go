package peers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cpuMeter measures what a drain costs in CPU time and allocations, the
// figures a shared machine's load moves least (BENCHMARKS.md, "Side by
// side with River"): this process's CPU (the in-process replica, and the
// benchmark's own poll), its heap allocations, and the private server's
// CPU (the postmaster, its live children and those it reaped: every
// backend, the poll's included). Linux only: it reads /proc.
type cpuMeter struct{ postmaster string }

// cpuUse is what a meter read: CPU of this process and of the server, and
// this process's allocations.
type cpuUse struct {
	process, server time.Duration
	allocs          uint64
}

// newCPUMeter finds the postmaster as the parent of one of pool's backends.
func newCPUMeter(b *testing.B, pool *pgxpool.Pool) cpuMeter {
	b.Helper()
	var backend int
	if err := pool.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	f, err := procStat(strconv.Itoa(backend))
	if err != nil {
		b.Fatalf("the CPU meter reads /proc (Linux only): %v", err)
	}
	return cpuMeter{postmaster: f[1]}
}

// used reads the meter. A child reaped while the children are being read
// would be counted twice or not at all; the postmaster's reaped total not
// moving across the read proves it was not.
func (m cpuMeter) used(b *testing.B) cpuUse {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for {
		reaped := m.ticks(b, 13, 14)
		children := int64(0)
		dirs, err := os.ReadDir("/proc")
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range dirs {
			if f, err := procStat(d.Name()); err == nil && f[1] == m.postmaster {
				children += statTicks(f, 11, 12)
			}
		}
		if m.ticks(b, 13, 14) == reaped {
			// /proc reports in USER_HZ, 100 per second on every Linux ABI.
			return cpuUse{
				process: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
				server:  time.Duration(m.ticks(b, 11, 12)+reaped+children) * 10 * time.Millisecond,
				allocs:  ms.Mallocs,
			}
		}
	}
}

func (u cpuUse) since(start cpuUse) cpuUse {
	return cpuUse{process: u.process - start.process, server: u.server - start.server, allocs: u.allocs - start.allocs}
}

// report gives the drain's CPU times and the process's allocations per
// occurrence of n.
func (u cpuUse) report(b *testing.B, n int) {
	b.ReportMetric(float64(u.process.Milliseconds()), "process_cpu_ms")
	b.ReportMetric(float64(u.server.Milliseconds()), "server_cpu_ms")
	b.ReportMetric(float64(u.allocs)/float64(n), "allocs/occurrence")
}

func (m cpuMeter) ticks(b *testing.B, idx ...int) int64 {
	b.Helper()
	f, err := procStat(m.postmaster)
	if err != nil {
		b.Fatal(err)
	}
	return statTicks(f, idx...)
}

// procStat is /proc/<pid>/stat from field 3 (state) on, so index 1 is the
// parent pid and 11–14 are utime, stime, cutime and cstime; the command
// name before it may contain spaces.
func procStat(pid string) ([]string, error) {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%s/stat: no command name", pid)
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 15 {
		return nil, fmt.Errorf("/proc/%s/stat: %d fields", pid, len(f))
	}
	return f, nil
}

func statTicks(f []string, idx ...int) int64 {
	var n int64
	for _, i := range idx {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		n += v
	}
	return n
}
