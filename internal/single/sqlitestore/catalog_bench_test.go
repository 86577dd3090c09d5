package sqlitestore

import (
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// BenchmarkApply10kTriggers: applying a file of 10,000 triggers, as one
// transaction, against one transaction per object in the same run.
// Target: at most 5 s per file.
func BenchmarkApply10kTriggers(b *testing.B) {
	storetest.BenchApply(b, newEnv(b).fixture(), processCPU)
}

// processCPU is this process's CPU time; SQLite runs inside it.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
