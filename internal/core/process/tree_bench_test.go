//go:build linux

package process

import (
	"syscall"
	"testing"
)

// The cost an attempt's end adds when nothing of it is left (the usual
// case): the quick check of the group, of what was seen and of the
// adopted children, without reading the whole process table. The previous
// end was a single kill of the group, measured alongside as the baseline.
func BenchmarkEndOfAFinishedAttempt(b *testing.B) {
	becomeSubreaper()
	t := newTree(1<<22-1, "bench")
	for b.Loop() {
		if live := t.live(); len(live) != 0 {
			b.Fatalf("a tree of no process has members %v", live)
		}
	}
	b.ReportMetric(float64(len(processTable())), "processes")
}

func BenchmarkEndGroupKillBaseline(b *testing.B) {
	for b.Loop() {
		_ = syscall.Kill(-(1<<22 - 1), syscall.SIGKILL)
	}
}
