// Package cpumeter measures what a benchmark's work costs in CPU time and
// allocations, the figures a shared machine's load moves least: this
// process's CPU and heap allocations, and a PostgreSQL server's CPU (its
// postmaster, the postmaster's live children and those it reaped: every
// backend). The cluster store's benchmarks and the side-by-side ones of
// bench/peers (a module of its own, whose import path lies under this
// module's, so Go lets it import this internal package) share it. Linux
// only: it reads /proc.
package cpumeter

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Meter reads the CPU time of this process and of one PostgreSQL server.
type Meter struct{ postmaster string }

// Use is what a Meter read.
type Use struct {
	// Process is this process's user and system CPU time.
	Process time.Duration
	// Server is the server's CPU time.
	Server time.Duration
	// Allocs counts this process's heap allocations.
	Allocs uint64
}

// New meters the server of backend, the process id of one of its
// backends (`SELECT pg_backend_pid()`): the postmaster is its parent.
func New(tb testing.TB, backend int) Meter {
	tb.Helper()
	f, err := procStat(strconv.Itoa(backend))
	if err != nil {
		tb.Fatalf("the CPU meter reads /proc (Linux only): %v", err)
	}
	return Meter{postmaster: f[1]}
}

// Used reads the meter. A child reaped while the children are being read
// would be counted twice or not at all; the postmaster's reaped total not
// moving across the read proves it was not.
func (m Meter) Used(tb testing.TB) Use {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for {
		reaped := m.ticks(tb, 13, 14)
		children := int64(0)
		dirs, err := os.ReadDir("/proc")
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range dirs {
			if f, err := procStat(d.Name()); err == nil && f[1] == m.postmaster {
				children += statTicks(f, 11, 12)
			}
		}
		if m.ticks(tb, 13, 14) == reaped {
			// /proc reports in USER_HZ, 100 per second on every Linux ABI.
			return Use{
				Process: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
				Server:  time.Duration(m.ticks(tb, 11, 12)+reaped+children) * 10 * time.Millisecond,
				Allocs:  ms.Mallocs,
			}
		}
	}
}

// Since is what was used between start and u.
func (u Use) Since(start Use) Use {
	return Use{Process: u.Process - start.Process, Server: u.Server - start.Server, Allocs: u.Allocs - start.Allocs}
}

func (m Meter) ticks(tb testing.TB, idx ...int) int64 {
	tb.Helper()
	f, err := procStat(m.postmaster)
	if err != nil {
		tb.Fatal(err)
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
